package lamina.table.commit

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.TestTables.{file, message}

class CommitReplayTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("commit-replay")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  test("a user's commit landed when its latest non-compact snapshot carries that identifier or a later one") {
    val t = TestTables.createTable(root.resolve("t"), TestTables.eventsSchema())
    assert(!CommitReplay.committed(t, "query", 0L))
    new FileStoreCommit(t, "query").append(Seq(message("a", file("f0"))), identifier = 0L)
    new FileStoreCommit(t, "query").append(Seq(message("a", file("f1"))), identifier = 1L)
    new FileStoreCommit(t, "other").append(Seq(message("a", file("g0"))), identifier = 99L)
    // a compaction of the user's with an identifier of its own does not count
    new FileStoreCommit(t, "query").append(Seq(message("a").copy(compactBefore = Seq(file("f0")),
          compactAfter = Seq(file("c0")))), identifier = 1000L)
    assert(CommitReplay.latestIdentifier(t, "query") === Some(1L))
    assert(CommitReplay.committed(t, "query", 0L) && CommitReplay.committed(t, "query", 1L))
    assert(!CommitReplay.committed(t, "query", 2L))
    assert(CommitReplay.latestIdentifier(t, "nobody") === None)
  }
}
