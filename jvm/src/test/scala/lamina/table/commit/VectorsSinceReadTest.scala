package lamina.table.commit

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TempTables, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.scan.{DataSplit, FileStoreScan}

/** An append table's compaction commit ([[FileStoreCommit.compactAppend]]) checks its inputs against
 *  what it read ([[VectorsSinceRead]]): rows another commit marked deleted meanwhile must not come back. */
class VectorsSinceReadTest extends AnyFunSuite with TempTables {
  private def seeded(): FileStoreTable = {
    val t = newTable(TestTables.eventsSchema(Map("deletion-vectors.enabled" -> "true")))
    new FileStoreCommit(t, "seed").append(Seq(message("a", file("a1"), file("a2"))))
    t
  }

  private def scan(t: FileStoreTable): Seq[DataSplit] = new FileStoreScan(t, t.snapshotManager.latest().get).plan()

  private def mark(t: FileStoreTable, f: String, p: Long): Unit = {
    val d = new DeletedPositions
    d.add(f, p)
    new FileStoreCommit(t, "dml").markDeleted(scan(t), d, Nil)
  }

  private def compacted(inputs: String*) =
    Seq(message("a").copy(compactBefore = inputs.map(file(_)), compactAfter = Seq(file("c1", rows = 19))))

  private def live(t: FileStoreTable) = t.snapshotEntries.live(t.snapshotManager.latest().get).map(_.file.fileName).sorted

  test("a compaction removes its inputs and their vectors") {
    val t = seeded()
    mark(t, "a1", 3L)
    assert(new FileStoreCommit(t, "compact").compactAppend(compacted("a1", "a2"), scan(t)) === Some(3L))
    assert(live(t) === Seq("c1") && t.snapshotManager.latest().get.indexManifest.isEmpty)
  }

  test("an input whose rows were marked deleted after the compaction read it is a conflict") {
    val t = seeded()
    val read = scan(t)
    mark(t, "a2", 3L)
    val e = intercept[CommitConflictException](new FileStoreCommit(t, "compact").compactAppend(compacted("a1", "a2"), read))
    assert(e.getMessage === s"Commit to table ${t.name} conflicts with a concurrent commit: a compaction rewrote a2, " +
      "but a concurrent commit deleted or updated rows of the file since the operation read it. Retry the operation.")
    assert(live(t) === Seq("a1", "a2"))
  }

  test("marks of files the compaction does not rewrite, and appends, do not conflict") {
    val t = seeded()
    val read = scan(t).map(s => s.copy(files = s.files.filter(_.fileName == "a1")))
    mark(t, "a2", 3L)
    new FileStoreCommit(t, "w").append(Seq(message("a", file("a3"))))
    assert(new FileStoreCommit(t, "compact").compactAppend(compacted("a1"), read).isDefined)
    assert(live(t) === Seq("a2", "a3", "c1"))
  }
}
