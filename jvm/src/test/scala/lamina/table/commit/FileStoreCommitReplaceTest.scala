package lamina.table.commit

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TempTables, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.scan.DataSplit
import lamina.table.snapshot.Snapshot

/** Copy-on-write commits ([[FileStoreCommit.replace]]): the files an operation read are removed and
 *  its files added in one snapshot; a read file that a concurrent commit removed is a conflict,
 *  files others added meanwhile are not. */
class FileStoreCommitReplaceTest extends AnyFunSuite with TempTables {

  /** The live files named, as the splits a scan of the latest snapshot would plan. */
  private def read(t: FileStoreTable, names: String*): Seq[DataSplit] = {
    val s = t.snapshotManager.latest().get
    new FileStoreCommit(t, "reader").liveEntries(s).filter(e => names.contains(e.file.fileName)).map(e =>
      DataSplit(s.id, e.partition, e.bucket, e.totalBuckets, "", Seq(e.file)))
  }

  private def live(t: FileStoreTable): Seq[String] =
    new FileStoreCommit(t, "reader").liveEntries(t.snapshotManager.latest().get).map(_.file.fileName).sorted

  /** A table with a1, a2 (partition a) and b1 (partition b), 10 rows each, in snapshot 1. */
  private def seeded(): FileStoreTable = {
    val t = newTable(TestTables.eventsSchema())
    new FileStoreCommit(t, "seed").append(Seq(message("a", file("a1"), file("a2")), message("b", file("b1"))))
    t
  }

  test("removes exactly the files read and adds the new ones in one OVERWRITE snapshot") {
    val t = seeded()
    val c = new FileStoreCommit(t, "dml")
    assert(c.replace(read(t, "a1"), Seq(message("a", file("a3", rows = 4))), onlyRemovesRows = true) === Some(2L))
    assert(live(t) === Seq("a2", "a3", "b1"))
    val s = t.snapshotManager.snapshot(2)
    assert((s.commitKind, s.deltaRecordCount, s.totalRecordCount) === ((Snapshot.Kind.Overwrite, -6L, Some(24L))))
    // time travel: snapshot 1 still lists the file read
    assert(c.liveEntries(t.snapshotManager.snapshot(1)).map(_.file.fileName).sorted === Seq("a1", "a2", "b1"))
  }

  test("a DELETE that keeps every row it read commits nothing; other operations always commit") {
    val t = seeded()
    val c = new FileStoreCommit(t, "dml")
    assert(c.replace(read(t, "a1"), Seq(message("a", file("a3", rows = 10))), onlyRemovesRows = true) === None)
    assert(c.replace(Nil, Nil, onlyRemovesRows = true) === None)
    assert(c.replace(Nil, Nil, onlyRemovesRows = false) === None)
    assert(t.snapshotManager.latestId() === Some(1L))
    // an UPDATE keeps as many rows as it reads and is committed
    assert(c.replace(read(t, "a1"), Seq(message("a", file("a3", rows = 10))), onlyRemovesRows = false) === Some(2L))
    // removing every row of the files read: no new file, still a commit
    assert(c.replace(read(t, "b1"), Nil, onlyRemovesRows = true) === Some(3L))
    assert(live(t) === Seq("a2", "a3"))
  }

  test("an operation that read no file only adds: an APPEND snapshot") {
    val t = seeded()
    assert(new FileStoreCommit(t, "dml").replace(Nil, Seq(message("c", file("c1"))), onlyRemovesRows = false) === Some(2L))
    assert(t.snapshotManager.snapshot(2).commitKind === Snapshot.Kind.Append)
    assert(live(t) === Seq("a1", "a2", "b1", "c1"))
  }

  test("a read file that a concurrent commit removed is a conflict; nothing is committed") {
    val t = seeded()
    val splits = read(t, "a1", "b1")
    // another writer compacts a1 away after the operation's scan
    new FileStoreCommit(t, "other").append(Seq(message("a").copy(compactBefore = Seq(file("a1")),
          compactAfter = Seq(file("a9", level = 1)))))
    val e = intercept[CommitConflictException](
      new FileStoreCommit(t, "dml").replace(splits, Seq(message("a", file("a3", rows = 5))), onlyRemovesRows = true))
    assert(e.getMessage === "Commit to table db.t conflicts with a concurrent commit: file a1 (bucket 0) was already " +
      "deleted or replaced. Retry the operation.")
    assert(t.snapshotManager.latestId() === Some(2L))
    assert(live(t) === Seq("a2", "a9", "b1"))
    // and the same for a file an overwrite removed
    val again = read(t, "b1")
    new FileStoreCommit(t, "other").overwrite(Seq(message("b", file("b2"))), None)
    intercept[CommitConflictException](new FileStoreCommit(t, "dml").replace(again, Nil, onlyRemovesRows = true))
    assert(t.snapshotManager.latestId() === Some(3L))
  }

  test("files appended concurrently do not conflict and stay live") {
    val t = seeded()
    val splits = read(t, "a1", "a2")
    new FileStoreCommit(t, "other").append(Seq(message("a", file("a5")), message("b", file("b5"))))
    assert(new FileStoreCommit(t, "dml").replace(splits, Seq(message("a", file("a3", rows = 15))),
      onlyRemovesRows = true) === Some(3L))
    assert(live(t) === Seq("a3", "a5", "b1", "b5"))
    assert(t.snapshotManager.snapshot(3).totalRecordCount === Some(45L))
  }
}
