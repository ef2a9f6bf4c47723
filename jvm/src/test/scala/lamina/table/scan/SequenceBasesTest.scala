package lamina.table.scan

import java.nio.file.{Files, Paths}

import scala.collection.immutable.ArraySeq

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, stringPartition}
import lamina.table.commit.{CommitMessage, FileStoreCommit}

class SequenceBasesTest extends AnyFunSuite {
  private val root = TestTables.tempDir("sequence-bases")

  private var n = 0
  private def newTable(): FileStoreTable = {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema())
  }

  private def add(t: FileStoreTable, partition: String, bucket: Int, name: String, maxSeq: Long): CommitMessage =
    CommitMessage(stringPartition(partition), bucket, 2, Seq(file(name).copy(maxSequenceNumber = maxSeq)))

  private def key(partition: String, bucket: Int): SequenceBases.Key =
    (ArraySeq.unsafeWrapArray(stringPartition(partition)), bucket)

  /** A table whose first snapshot adds one file with `maxSeq` in (a, 0), its bounds already asked for
   *  (so later calls catch up), and its committer. */
  private def knownAfterOneFile(maxSeq: Long): (FileStoreTable, FileStoreCommit) = {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(add(t, "a", 0, "f1", maxSeq)))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> maxSeq))
    (t, c)
  }

  private def live(t: FileStoreTable) = SequenceBases.ofLiveFiles(t, t.snapshotManager.latest().get)

  test("a table without snapshots has no bounds") {
    assert(SequenceBases.of(newTable()) === Map.empty)
  }

  test("later writes catch up from the delta manifests and agree with the live files") {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(add(t, "a", 0, "f1", 10), add(t, "a", 1, "f2", 3)))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> 10L, key("a", 1) -> 3L))
    c.append(Seq(add(t, "a", 0, "f3", 25), add(t, "b", 0, "f4", 7)))
    c.append(Seq(add(t, "a", 1, "f5", 4)))
    val expected = Map(key("a", 0) -> 25L, key("a", 1) -> 4L, key("b", 0) -> 7L)
    assert(SequenceBases.of(t) === expected)
    assert(live(t) === expected)
  }

  test("only the snapshots since the last call are read") {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(add(t, "a", 0, "f1", 10)))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> 10L))
    val first = t.snapshotManager.snapshot(1)
    c.append(Seq(add(t, "a", 0, "f2", 12)))
    // the manifests of snapshot 1, which a read of all live files would need, are gone
    t.manifestStore.readList(first.deltaManifestList).foreach(m => t.manifestStore.deleteQuietly(m.fileName))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> 12L))
  }

  test("a deleted file never lowers a bound; an overwrite's bounds stay at least the live ones") {
    val (t, c) = knownAfterOneFile(40)
    c.overwrite(Seq(add(t, "a", 0, "f2", 5), add(t, "b", 1, "f3", 6)), None)
    assert(live(t) === Map(key("a", 0) -> 5L, key("b", 1) -> 6L))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> 40L, key("b", 1) -> 6L))
  }

  test("a snapshot gone in between, or a table created anew with fewer snapshots, reads the live files") {
    val (t, c) = knownAfterOneFile(10)
    c.append(Seq(add(t, "a", 0, "f2", 11)))
    c.append(Seq(add(t, "a", 0, "f3", 12)))
    Files.delete(Paths.get(t.snapshotManager.snapshotPath(2).toUri))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> 12L))

    // the same directory holding a new table with a single snapshot
    TestTables.deleteRecursively(Paths.get(t.path.toUri))
    val again = TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema())
    new FileStoreCommit(again, "w").append(Seq(add(again, "c", 0, "g1", 2)))
    assert(SequenceBases.of(again) === Map(key("c", 0) -> 2L))
  }

  test("a delta manifest gone in between reads the live files") {
    val (t, c) = knownAfterOneFile(10)
    c.append(Seq(add(t, "a", 0, "f2", 11)))
    c.append(Seq(add(t, "b", 0, "f3", 3)))
    Files.delete(Paths.get(t.paths.manifestPath(t.snapshotManager.snapshot(2).deltaManifestList).toUri))
    // snapshot 3's live files are read in full; its base list no longer needs snapshot 2's delta list
    assert(SequenceBases.of(t) === live(t))
    assert(SequenceBases.of(t) === Map(key("a", 0) -> 11L, key("b", 0) -> 3L))
  }
}
