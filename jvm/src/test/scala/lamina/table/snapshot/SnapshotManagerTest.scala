package lamina.table.snapshot

import java.nio.file.{Files, Path => JPath}
import java.util.concurrent.{CountDownLatch, CyclicBarrier, Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{CorruptFileException, NotFoundException}
import lamina.table.TestTables

class SnapshotManagerTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("snapshot-manager")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private var n = 0
  private def newManager(): (SnapshotManager, JPath) = {
    n += 1
    val dir = root.resolve(s"t$n")
    (new SnapshotManager(TestTables.fileIO, TestTables.hadoopPath(dir), "db.t"), dir.resolve("snapshot"))
  }

  private def snap(id: Long, time: Long = 1000L, user: String = "u"): Snapshot = Snapshot(
    id = id, schemaId = 0, baseManifestList = s"manifest-list-$id-0", baseManifestListSize = Some(1L),
    deltaManifestList = s"manifest-list-$id-1", deltaManifestListSize = Some(1L), changelogManifestList = None,
    changelogManifestListSize = None, indexManifest = None, commitUser = user, commitIdentifier = id,
    commitKind = Snapshot.Kind.Append, timeMillis = time, totalRecordCount = Some(id), deltaRecordCount = 1,
    changelogRecordCount = None, watermark = None)

  private def committed(ids: Range): (SnapshotManager, JPath) = {
    val (m, dir) = newManager()
    ids.foreach(i => assert(m.tryCommit(snap(i.toLong, time = 1000L * i))))
    (m, dir)
  }

  /** Writes a hint the way the table does (through FileIO, so Hadoop's checksum file matches). */
  private def writeHint(dir: JPath, name: String, text: String): Unit =
    TestTables.fileIO.overwriteUtf8(TestTables.hadoopPath(dir.resolve(name)), text)

  test("an empty table has no snapshots") {
    val (m, _) = newManager()
    assert(m.latestId() === None)
    assert(m.earliestId() === None)
    assert(m.latest() === None)
    assert(m.listIds() === Nil)
    assert(m.earlierOrEqualTime(Long.MaxValue) === None)
    val e = intercept[NotFoundException](m.snapshot(1))
    assert(e.getMessage === "Snapshot 1 of table db.t does not exist; the table has no snapshots")
  }

  test("tryCommit writes the snapshot and both hints") {
    val (m, dir) = committed(1 to 3)
    assert(m.listIds() === Seq(1L, 2L, 3L))
    assert(new String(Files.readAllBytes(dir.resolve("LATEST")), "UTF-8") === "3")
    assert(new String(Files.readAllBytes(dir.resolve("EARLIEST")), "UTF-8") === "1")
    assert(m.snapshot(2) === snap(2, time = 2000L))
    assert(m.latest() === Some(snap(3, time = 3000L)))
    assert(m.all().map(_.id) === Seq(1L, 2L, 3L))
  }

  test("latestId: a stale, missing, dangling or garbage LATEST hint falls back to the truth") {
    val (m, dir) = committed(1 to 5)
    assert(m.latestId() === Some(5L))
    for (hint <- Seq("3", "1", "9", "0", "-2", "abc", "", " 4 \n", "99999999999999999999")) {
      writeHint(dir, "LATEST", hint)
      assert(m.latestId() === Some(5L), s"hint '$hint'")
    }
    writeHint(dir, "LATEST", "4")
    // bytes changed behind the checksum: the hint is unreadable
    Files.write(dir.resolve("LATEST"), "2".getBytes("UTF-8"))
    assert(m.latestId() === Some(5L))
    Files.delete(dir.resolve("LATEST"))
    assert(m.latestId() === Some(5L))
    Files.createDirectory(dir.resolve("LATEST"))
    assert(m.latestId() === Some(5L))
  }

  test("earliestId: a hint naming an expired snapshot or garbage falls back to the listing") {
    val (m, dir) = committed(1 to 5)
    assert(m.earliestId() === Some(1L))
    Files.delete(dir.resolve("snapshot-1"))
    Files.delete(dir.resolve("snapshot-2"))
    assert(m.earliestId() === Some(3L))
    writeHint(dir, "EARLIEST", "x")
    assert(m.earliestId() === Some(3L))
    writeHint(dir, "EARLIEST", "4")
    assert(m.earliestId() === Some(4L))
    Files.delete(dir.resolve("EARLIEST"))
    assert(m.earliestId() === Some(3L))
  }

  test("listIds ignores hints, temporary files and other names") {
    val (m, dir) = committed(1 to 2)
    for (name <- Seq("snapshot-", "snapshot-x1", ".snapshot-3.abc.tmp", "snapshot-4.bak", "LATEST.old"))
      Files.write(dir.resolve(name), Array[Byte](1))
    assert(m.listIds() === Seq(1L, 2L))
    writeHint(dir, "LATEST", "2")
    assert(m.latestId() === Some(2L))
  }

  test("a missing snapshot is NotFound naming the table and the available range") {
    val (m, dir) = committed(1 to 4)
    Files.delete(dir.resolve("snapshot-1"))
    val e = intercept[NotFoundException](m.snapshot(9))
    assert(e.getMessage === "Snapshot 9 of table db.t does not exist; available snapshots are 2 to 4")
    val e1 = intercept[NotFoundException](m.snapshot(1))
    assert(e1.getMessage === "Snapshot 1 of table db.t has expired; available snapshots are 2 to 4")
    assert(!m.exists(1))
    assert(m.exists(2))
  }

  test("a corrupt snapshot file is corruption naming its path") {
    val (m, dir) = committed(1 to 2)
    Files.write(dir.resolve("snapshot-2"), "{\"id\": 2}".getBytes("UTF-8"))
    val e = intercept[CorruptFileException](m.snapshot(2))
    assert(e.path === m.snapshotPath(2).toString)
    assert(e.getMessage === s"Corrupt file ${m.snapshotPath(2)} at offset 0: expected field 'schemaId', found missing")
  }

  test("earlierOrEqualTime picks the last snapshot at or before the time") {
    val (m, _) = committed(1 to 3)
    val cases = Seq(0L -> None, 999L -> None, 1000L -> Some(1L), 1999L -> Some(1L), 2000L -> Some(2L),
      2500L -> Some(2L), 3000L -> Some(3L), Long.MaxValue -> Some(3L))
    for ((t, id) <- cases) assert(m.earlierOrEqualTime(t).map(_.id) === id, s"t=$t")
  }

  test("tryCommit of an id that exists returns false and leaves the file alone") {
    val (m, _) = committed(1 to 1)
    assert(!m.tryCommit(snap(1, user = "other")))
    assert(m.snapshot(1).commitUser === "u")
  }

  test("two tryCommit of the same id at once: exactly one wins, and its snapshot is the one on disk") {
    val (m, _) = newManager()
    val pool = Executors.newFixedThreadPool(2)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    try {
      for (id <- 1L to 25L) {
        val barrier = new CyclicBarrier(2)
        val attempts = Seq("a", "b").map { user =>
          Future { barrier.await(); user -> m.tryCommit(snap(id, user = user)) }
        }
        val results = Await.result(Future.sequence(attempts), 30.seconds)
        val winners = results.filter(_._2).map(_._1)
        assert(winners.size === 1, s"id $id: $results")
        assert(m.snapshot(id).commitUser === winners.head)
      }
      assert(m.listIds() === (1L to 25L))
      assert(m.latestId() === Some(25L))
    } finally {
      pool.shutdownNow()
      pool.awaitTermination(10, TimeUnit.SECONDS)
    }
  }
}
