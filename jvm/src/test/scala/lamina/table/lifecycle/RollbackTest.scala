package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.NotFoundException

class RollbackTest extends AnyFunSuite {

  test("rollback to a snapshot removes later snapshots, their tags and the files only they used") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    Tags.create(f.table, "t5", Some(5L), None)
    assert(Rollback.to(f.table, "3") === Rollback.Result(6, 3))
    assert(f.snapshotIds === (1L to 3L))
    assert(f.hint("LATEST") === "3")
    assert(f.table.snapshotManager.latestId() === Some(3L))
    assert(f.table.snapshotManager.tags.names() === Seq("t2"))
    assert(f.dataFiles === Seq("a1", "a2", "a3"))
    assert(f.live(3) === Seq("a3"))
    assert(f.manifestDir === f.referencedMetadata(1, 2, 3))
  }

  test("rollback to a tag whose snapshot expired brings the snapshot back from the tag") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    new SnapshotExpiration(f.table).expire(RetentionPolicy(2, Int.MaxValue, 0L, 50), System.currentTimeMillis() + 60000)
    assert(Rollback.to(f.table, "t2") === Rollback.Result(6, 2))
    assert(f.snapshotIds === Seq(2L))
    assert((f.hint("LATEST"), f.hint("EARLIEST")) === (("2", "2")))
    assert(f.live(2) === Seq("a1", "a2"))
    assert(f.dataFiles === Seq("a1", "a2"))
    assert(f.manifestDir === f.referencedMetadata(2))
  }

  test("a snapshot that does not exist or a tag that does not is refused, naming it") {
    val f = LifecycleFixture()
    assert(intercept[NotFoundException](Rollback.to(f.table, "9")).getMessage ===
      "Cannot roll table db.t back to snapshot 9: Snapshot 9 of table db.t does not exist; available snapshots are 1 to 6")
    assert(intercept[NotFoundException](Rollback.to(f.table, "nope")).getMessage ===
      "Tag 'nope' of table db.t does not exist; the table has no tags")
    assert(f.snapshotIds === (1L to 6L))
  }
}
