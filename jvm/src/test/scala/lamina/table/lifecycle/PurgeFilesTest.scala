package lamina.table.lifecycle

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit
import lamina.table.consumer.{Consumer, ConsumerManager}

/** `purge_files` on the six-snapshot fixture with a tag, a branch, a consumer and an orphan file. */
class PurgeFilesTest extends AnyFunSuite {

  test("leaves one empty snapshot and the schema: no row, data file, tag, branch, consumer or orphan") {
    val f = LifecycleFixture()
    val t = f.table
    Tags.create(t, "t2", Some(2L), None)
    Branches.create(t, "dev", Some("t2"))
    ConsumerManager.of(t).reset("reader", Consumer(3L))
    val orphan = new Path(t.paths.manifestDir, "manifest-orphan")
    t.fileIO.writeBytes(orphan, Array[Byte](1))
    PurgeFiles.purge(t)

    assert(f.snapshotIds === Seq(7L))
    val s = t.snapshotManager.snapshot(7)
    assert((s.commitKind, s.totalRecordCount) === (("OVERWRITE", Some(0L))))
    assert(f.live(7) === Nil && f.dataFiles === Nil)
    assert(t.snapshotManager.tags.all() === Nil && t.branchManager.names() === Nil)
    assert(ConsumerManager.of(t).all() === Nil)
    assert(!t.fileIO.exists(orphan) && f.manifestDir -- Set("LATEST", "EARLIEST") === f.referencedMetadata(7))
    assert(t.schemaManager.latest().map(_.id) === Some(0L))
    // writes go on at the next snapshot id
    assert(new FileStoreCommit(t, "writer").append(Seq(message("a", file("a9", rows = 2)))) === Some(8L))
    assert(f.live(8) === Seq("a9"))
  }
}
