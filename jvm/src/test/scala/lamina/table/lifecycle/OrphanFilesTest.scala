package lamina.table.lifecycle

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables
import lamina.table.commit.FileStoreCommit

class OrphanFilesTest extends AnyFunSuite {
  private val later = System.currentTimeMillis() + 60000

  private def stray(f: LifecycleFixture, relative: String): Path = {
    val p = new Path(f.table.path, relative)
    f.table.fileIO.writeBytes(p, Array[Byte](1, 2, 3))
    p
  }

  test("files no snapshot or tag refers to are found and removed; what snapshots and tags use stays") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    new SnapshotExpiration(f.table).expire(RetentionPolicy(2, Int.MaxValue, 0L, 50), later)
    val before = (5L to 6L).map(f.live)
    val orphans = Seq(stray(f, "a/bucket-0/data-orphan.parquet"), stray(f, "manifest/manifest-orphan-0"),
      stray(f, "index/index-orphan-0"))
    val kept = Seq(stray(f, "snapshot/unrelated"), stray(f, "schema/unrelated"), stray(f, "top-level-file"))
    val found = new OrphanFiles(f.table).remove(later, dryRun = true)
    assert(found.map(_.getPath.getName).sorted === orphans.map(_.getName).sorted)
    assert(orphans.forall(f.table.fileIO.exists))
    assert(new OrphanFiles(f.table).remove(later, dryRun = false).size === 3)
    assert(!orphans.exists(f.table.fileIO.exists))
    assert(kept.forall(f.table.fileIO.exists))
    assert((5L to 6L).map(f.live) === before)
    assert(f.live(2) === Seq("a1", "a2")) // the tag's files are still there
    assert(f.dataFiles === Seq("a1", "a2", "a5", "b1", "b2"))
    assert(f.manifestDir -- Set("LATEST", "EARLIEST") === f.referencedMetadata(2, 5, 6))
  }

  test("files modified after the margin are kept: they may belong to a write still running") {
    val f = LifecycleFixture()
    stray(f, "a/bucket-0/data-in-flight.parquet")
    assert(new OrphanFiles(f.table).remove(System.currentTimeMillis() - 60000, dryRun = false).isEmpty)
    assert(f.table.fileIO.exists(new Path(f.table.path, "a/bucket-0/data-in-flight.parquet")))
  }

  test("a damaged manifest stops the clean-up before anything is deleted") {
    val f = LifecycleFixture()
    val orphan = stray(f, "a/bucket-0/data-orphan.parquet")
    val list = f.table.manifestStore.manifestPath(f.table.snapshotManager.snapshot(6).baseManifestList)
    f.table.fileIO.delete(list, false)
    f.table.fileIO.writeBytes(list, Array[Byte](0, 1, 2))
    intercept[CorruptFileException](new OrphanFiles(f.table).remove(later, dryRun = false))
    assert(f.table.fileIO.exists(orphan))
  }

  test("under external roots only the table's layout is walked; live external files stay; an unreachable root is skipped") {
    val dir = TestTables.tempDir("orphans-external")
    val root = TestTables.hadoopPath(dir.resolve("root"))
    val options = Map("data-file.external-paths" -> s"$root,nosuch://host/elsewhere",
      "data-file.external-paths.strategy" -> "round-robin")
    val table = TestTables.createTable(dir, TestTables.eventsSchema(options))
    val live = new Path(root, "p=a/bucket-0/data-live.parquet")
    table.fileIO.writeBytes(live, Array[Byte](1))
    new FileStoreCommit(table, "writer").append(Seq(TestTables.message("a",
          TestTables.file("data-live.parquet", rows = 1).copy(externalPath = Some(live.toString)))))
    val orphan = new Path(root, "p=a/bucket-0/data-orphan.parquet")
    val outside = Seq(new Path(root, "p=a/data-beside.parquet"), new Path(root, "unrelated/bucket-0/data-x.parquet"))
    (orphan +: outside).foreach(table.fileIO.writeBytes(_, Array[Byte](1)))
    val removed = new OrphanFiles(table).remove(later, dryRun = false)
    assert(removed.map(_.getPath.getName) === Seq("data-orphan.parquet"))
    assert(table.fileIO.exists(live) && outside.forall(table.fileIO.exists))
    TestTables.deleteRecursively(dir)
  }
}
