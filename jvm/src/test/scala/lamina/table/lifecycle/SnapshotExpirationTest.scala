package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.NotFoundException

class SnapshotExpirationTest extends AnyFunSuite {
  private def keepLast(n: Int) = RetentionPolicy(n, Int.MaxValue, 0L, 50)
  private val later = System.currentTimeMillis() + 60000

  test("expires the oldest snapshots with the files only they used; kept snapshots read the same files") {
    val f = LifecycleFixture()
    val before = (5L to 6L).map(f.live)
    assert(new SnapshotExpiration(f.table).expire(keepLast(2), later) === 4)
    assert(f.snapshotIds === Seq(5L, 6L))
    assert(f.hint("EARLIEST") === "5")
    assert((5L to 6L).map(f.live) === before)
    // a1, a2 (removed by 3) and a3 (compacted away by 5) are gone; what 5 and 6 hold stays
    assert(f.dataFiles === Seq("a5", "b1", "b2"))
    assert(f.manifestDir -- Set("LATEST", "EARLIEST") === f.referencedMetadata(5, 6))
  }

  test("an expired snapshot is refused, saying it expired and what remains") {
    val f = LifecycleFixture()
    new SnapshotExpiration(f.table).expire(keepLast(2), later)
    val e = intercept[NotFoundException](f.table.snapshotManager.snapshot(3))
    assert(e.getMessage === "Snapshot 3 of table db.t has expired; available snapshots are 5 to 6")
  }

  test("a tag keeps its snapshot's files and metadata; deleting the tag frees them") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    new SnapshotExpiration(f.table).expire(keepLast(2), later)
    assert(f.snapshotIds === Seq(5L, 6L))
    assert(f.dataFiles === Seq("a1", "a2", "a5", "b1", "b2"))
    assert(f.live(2) === Seq("a1", "a2"))
    assert(f.manifestDir === f.referencedMetadata(2, 5, 6))
    Tags.delete(f.table, "t2")
    assert(f.dataFiles === Seq("a5", "b1", "b2"))
    assert(f.manifestDir === f.referencedMetadata(5, 6))
  }

  test("expire.limit caps one run and the next run continues; a rerun after a crash finishes the job") {
    val f = LifecycleFixture()
    assert(new SnapshotExpiration(f.table).expire(RetentionPolicy(1, Int.MaxValue, 0L, 2), later) === 2)
    assert(f.snapshotIds === Seq(3L, 4L, 5L, 6L))
    assert(f.dataFiles === Seq("a1", "a2", "a3", "a5", "b1", "b2").filterNot(Set("a1", "a2")))
    // a crash after the files of 3 and 4 went but before their snapshot files did
    val e = new SnapshotExpiration(f.table)
    f.table.fileIO.delete(f.dataPath("a3"), false)
    (f.referencedMetadata(3, 4) -- f.referencedMetadata(5, 6)).foreach(n =>
      f.table.fileIO.delete(f.table.manifestStore.manifestPath(n), false))
    assert(e.expire(keepLast(2), later) === 2)
    assert(f.snapshotIds === Seq(5L, 6L))
    assert(f.manifestDir === f.referencedMetadata(5, 6))
    assert((5L to 6L).map(f.live).flatten.distinct.sorted === Seq("a5", "b1", "b2"))
  }

  test("nothing expires within the time retained, nor below num-retained.min") {
    val f = LifecycleFixture()
    val now = System.currentTimeMillis()
    assert(new SnapshotExpiration(f.table).expire(RetentionPolicy(1, Int.MaxValue, 3600000L, 50), now) === 0)
    assert(new SnapshotExpiration(f.table).expire(RetentionPolicy(6, Int.MaxValue, 0L, 50), later) === 0)
    assert(f.snapshotIds === (1L to 6L))
  }
}
