package lamina.table.consumer

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{BadInputException, CorruptFileException}
import lamina.table.TestTables
import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit
import lamina.table.lifecycle.{RetentionPolicy, SnapshotExpiration}

class ConsumerManagerTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("consumers")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  test("a consumer file is Paimon's JSON, read strictly") {
    assert(Consumer(7).toJson === """{"nextSnapshot":7}""")
    assert(Consumer.fromJson("""{"nextSnapshot": 3}""", "p") === Consumer(3))
    for (bad <- Seq("""{"next":3}""", """{"nextSnapshot":"x"}""", "[]", """{"nextSnapshot":0}""", "{"))
      intercept[CorruptFileException](Consumer.fromJson(bad, "p"))
  }

  test("consumers are kept, listed and expired by their files' age; ids are one file-name segment") {
    val t = TestTables.createTable(root.resolve("t1"), TestTables.eventsSchema())
    val m = ConsumerManager.of(t)
    assert(m.all().isEmpty && m.minNextSnapshot().isEmpty)
    m.reset("a", Consumer(5))
    m.reset("b", Consumer(3))
    assert(m.all().map(c => (c._1, c._2.nextSnapshot)) === Seq(("a", 5L), ("b", 3L)))
    assert(m.minNextSnapshot() === Some(3L))
    assert(m.expire(olderThanMillis = 0L).isEmpty)
    assert(m.expire(olderThanMillis = Long.MaxValue) === Seq("a", "b"))
    assert(m.get("a").isEmpty)
    val e = intercept[BadInputException](m.path("../x"))
    assert(e.getMessage === s"Invalid consumer name '../x': it must not contain '/' (table ${t.name})")
  }

  test("expiration keeps every snapshot from a consumer's next snapshot on") {
    val t = TestTables.createTable(root.resolve("t2"), TestTables.eventsSchema())
    val c = new FileStoreCommit(t, "w")
    (1 to 5).foreach(i => c.append(Seq(message("a", file(s"f$i")))))
    ConsumerManager.of(t).reset("slow", Consumer(2))
    val policy = RetentionPolicy(retainMin = 1, retainMax = 1, timeRetainedMillis = 0, maxDeletes = 100)
    assert(new SnapshotExpiration(t).expire(policy) === 1)
    assert(t.snapshotManager.earliestId() === Some(2L))
    ConsumerManager.of(t).delete("slow")
    assert(new SnapshotExpiration(t).expire(policy) === 3)
    assert(t.snapshotManager.earliestId() === Some(5L))
  }
}
