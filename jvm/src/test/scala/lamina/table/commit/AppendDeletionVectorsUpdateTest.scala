package lamina.table.commit

import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.DeletionVectorsIndexFile
import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TempTables, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.manifest.IndexManifestEntry
import lamina.table.scan.{DataSplit, FileStoreScan, SnapshotDeletionFiles}
import lamina.table.snapshot.Snapshot

/** Deletion-vector DML of append tables ([[FileStoreCommit.markDeleted]], [[AppendDeletionVectorsUpdate]]):
 *  marks land in Paimon's append-table layout, a file losing every row leaves, and concurrent marks of
 *  one file conflict while marks of other files do not, none lost. */
class AppendDeletionVectorsUpdateTest extends AnyFunSuite with TempTables {
  private val Dv = Map("deletion-vectors.enabled" -> "true")

  /** a1, a2 (partition a, 10 rows each) and b1 (partition b) in snapshot 1. */
  private def seeded(options: Map[String, String] = Map.empty): FileStoreTable = {
    val t = newTable(TestTables.eventsSchema(Dv ++ options))
    val bucketed = (m: CommitMessage) => if (options.contains("bucket")) m.copy(bucket = 1, totalBuckets = 2) else m
    new FileStoreCommit(t, "seed").append(Seq(message("a", file("a1"), file("a2")), message("b", file("b1"))).map(bucketed))
    t
  }

  /** The splits a scan of the latest snapshot plans, with their vectors. */
  private def scan(t: FileStoreTable): Seq[DataSplit] = new FileStoreScan(t, t.snapshotManager.latest().get).plan()

  private def marks(ps: (String, Seq[Long])*): DeletedPositions = {
    val d = new DeletedPositions
    ps.foreach { case (f, positions) => positions.foreach(d.add(f, _)) }
    d
  }

  private def latest(t: FileStoreTable): Snapshot = t.snapshotManager.latest().get

  /** Each live file's deleted positions at the latest snapshot. */
  private def vectors(t: FileStoreTable): Map[String, Seq[Long]] = {
    val s = latest(t)
    SnapshotDeletionFiles.of(t, s, t.snapshotEntries.live(s), wholeTable = true).values.flatten.map { case (f, d) =>
      f -> DeletionVectorsIndexFile.read(t.fileIO, d).positions.toSeq
    }.toMap
  }

  private def indexEntries(t: FileStoreTable): Seq[IndexManifestEntry] =
    latest(t).indexManifest.map(t.manifestStore.readIndexManifest).getOrElse(Seq.empty)

  private def live(t: FileStoreTable): Seq[String] = t.snapshotEntries.live(latest(t)).map(_.file.fileName).sorted

  test("marks rows in one index file of the partition's bucket 0, adds the new files, in one OVERWRITE") {
    val t = seeded()
    val c = new FileStoreCommit(t, "dml")
    assert(c.markDeleted(scan(t), marks("a1" -> Seq(3L, 1L), "b1" -> Seq(9L)), Seq(message("a", file("a3", rows = 2))))
      === Some(2L))
    assert(vectors(t) === Map("a1" -> Seq(1L, 3L), "b1" -> Seq(9L)))
    assert(live(t) === Seq("a1", "a2", "a3", "b1"))
    assert(latest(t).commitKind === Snapshot.Kind.Overwrite) // as Paimon commits a change of vectors
    val entries = indexEntries(t)
    assert(entries.map(e => (TestTables.stringPartitionValue(e.partition), e.bucket)).sorted === Seq(("a", 0), ("b", 0)))
    assert(entries.forall(e => e.kind == 0 && e.indexFile.indexType == DeletionVectorsIndexFile.IndexType))
  }

  test("a bucket-unaware partition keeps the index files it does not touch; a touched one is rewritten") {
    val t = seeded()
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> Seq(0L)), Nil)
    val first = indexEntries(t).map(_.indexFile.fileName).toSet
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a2" -> Seq(5L)), Nil)
    val second = indexEntries(t).map(_.indexFile.fileName).toSet
    assert(first.subsetOf(second) && second.size === 2)
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> Seq(7L)), Nil)
    val third = indexEntries(t)
    assert(third.size === 2 && (third.map(_.indexFile.fileName).toSet & first).isEmpty)
    assert(vectors(t) === Map("a1" -> Seq(0L, 7L), "a2" -> Seq(5L)))
  }

  test("a bucketed table keeps one index file per bucket") {
    val t = seeded(Map("bucket" -> "2", "bucket-key" -> "id"))
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> Seq(0L)), Nil)
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a2" -> Seq(5L)), Nil)
    val entries = indexEntries(t)
    assert(entries.map(e => (TestTables.stringPartitionValue(e.partition), e.bucket)) === Seq(("a", 1)))
    assert(entries.head.indexFile.dvRanges.get.map(_.dataFileName) === Seq("a1", "a2"))
    assert(vectors(t) === Map("a1" -> Seq(0L), "a2" -> Seq(5L)))
  }

  test("a bucket-unaware partition's vectors roll at the target size; only the files of marked vectors are rewritten") {
    val t = seeded(Map("deletion-vector.index-file.target-size" -> "1 b"))
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> Seq(0L), "a2" -> Seq(5L), "b1" -> Seq(2L)), Nil)
    def files(t: FileStoreTable) = indexEntries(t).map(e =>
      e.indexFile.fileName -> e.indexFile.dvRanges.get
        .map(_.dataFileName)).toMap
    val first = files(t)
    assert(first.values.toSeq.sortBy(_.head) === Seq(Seq("a1"), Seq("a2"), Seq("b1")))
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> Seq(7L)), Nil)
    val second = files(t)
    assert(second.size === 3 && (first.toSet & second.toSet) === first.filter(_._2 != Seq("a1")).toSet)
    assert(vectors(t) === Map("a1" -> Seq(0L, 7L), "a2" -> Seq(5L), "b1" -> Seq(2L)))
  }

  test("a bucketed table keeps one index file per bucket whatever the target size") {
    val t = seeded(Map("bucket" -> "2", "bucket-key" -> "id", "deletion-vector.index-file.target-size" -> "1 b"))
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> Seq(0L), "a2" -> Seq(5L)), Nil)
    assert(indexEntries(t).map(_.indexFile.dvRanges.get.map(_.dataFileName)) === Seq(Seq("a1", "a2")))
  }

  test("a file whose every row is deleted leaves the table with its vector") {
    val t = seeded()
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> (0L until 4L), "a2" -> Seq(1L)), Nil)
    new FileStoreCommit(t, "dml").markDeleted(scan(t), marks("a1" -> (4L until 10L)), Nil)
    assert(live(t) === Seq("a2", "b1"))
    assert(latest(t).commitKind === Snapshot.Kind.Overwrite && latest(t).totalRecordCount === Some(20L))
    assert(vectors(t) === Map("a2" -> Seq(1L)))
    assert(indexEntries(t).flatMap(_.indexFile.dvRanges.get.map(_.dataFileName)) === Seq("a2"))
  }

  test("nothing deleted: new files only are an APPEND, nothing at all commits nothing") {
    val t = seeded()
    val c = new FileStoreCommit(t, "dml")
    assert(c.markDeleted(scan(t), new DeletedPositions, Nil) === None)
    assert(c.markDeleted(scan(t), new DeletedPositions, Seq(message("c", file("c1")))) === Some(2L))
    assert(latest(t).commitKind === Snapshot.Kind.Append)
    assert(latest(t).indexManifest.isEmpty && live(t) === Seq("a1", "a2", "b1", "c1"))
  }

  test("two operations read one snapshot: marks of the same file conflict, of other files both land") {
    val t = seeded()
    val read = scan(t)
    new FileStoreCommit(t, "one").markDeleted(read, marks("a1" -> Seq(1L)), Nil)
    val e = intercept[CommitConflictException](
      new FileStoreCommit(t, "two").markDeleted(read, marks("a1" -> Seq(2L)), Seq(message("a", file("a9")))))
    assert(e.getMessage === s"Commit to table ${t.name} conflicts with a concurrent commit: rows were marked " +
      "deleted in a1, but a concurrent commit deleted or updated rows of the file since the operation read it. Retry the operation.")
    assert(latest(t).id === 2L)
    assert(new FileStoreCommit(t, "three").markDeleted(read, marks("a2" -> Seq(4L), "b1" -> Seq(0L)), Nil) === Some(3L))
    assert(vectors(t) === Map("a1" -> Seq(1L), "a2" -> Seq(4L), "b1" -> Seq(0L)))
    // the losing attempt's index file is gone: only the live snapshots' index files remain
    val referenced = (1L to 3L).flatMap(id =>
      t.snapshotManager.snapshot(id).indexManifest.toSeq
        .flatMap(t.manifestStore.readIndexManifest).map(_.indexFile.fileName)).toSet
    assert(t.fileIO.list(t.paths.indexDir).map(_.getPath.getName).toSet === referenced)
  }

  test("a marked file that a concurrent commit removed is a conflict") {
    val t = seeded()
    val read = scan(t)
    new FileStoreCommit(t, "other").append(Seq(message("a").copy(compactBefore = Seq(file("a1")),
          compactAfter = Seq(file("a8")))))
    val e = intercept[CommitConflictException](new FileStoreCommit(t, "dml").markDeleted(read, marks("a1" -> Seq(0L)), Nil))
    assert(e.getMessage.contains("rows were marked deleted in a1, but a concurrent commit removed the file"))
  }

  test("an index file rewritten for another file's sake does not conflict: its vectors are the same") {
    val t = seeded()
    new FileStoreCommit(t, "seed").markDeleted(scan(t), marks("a1" -> Seq(0L), "a2" -> Seq(0L)), Nil)
    val read = scan(t)
    new FileStoreCommit(t, "one").markDeleted(read, marks("a1" -> Seq(1L)), Nil) // rewrites a2's vector too
    assert(new FileStoreCommit(t, "two").markDeleted(read, marks("a2" -> Seq(2L)), Nil).isDefined)
    assert(vectors(t) === Map("a1" -> Seq(0L, 1L), "a2" -> Seq(0L, 2L)))
  }

  test("a file the operation did not read is refused") {
    val t = seeded()
    val e = intercept[IllegalStateException](new FileStoreCommit(t, "dml").markDeleted(Nil, marks("a1" -> Seq(0L)), Nil))
    assert(e.getMessage === s"rows of a1 of table ${t.name} were deleted, but the operation read no such file")
  }
}
