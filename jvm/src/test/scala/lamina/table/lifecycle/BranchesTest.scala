package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit

class BranchesTest extends AnyFunSuite {
  private val later = System.currentTimeMillis() + 60000
  private def keepLast(n: Int) = RetentionPolicy(n, Int.MaxValue, 0L, 50)

  test("a branch from a tag starts at the tag's snapshot, in Paimon's layout, and commits on its own") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    Branches.create(f.table, "b", Some("t2"))
    val dir = new org.apache.hadoop.fs.Path(f.table.path, "branch/branch-b")
    Seq("snapshot/snapshot-2", "schema/schema-0", "tag/tag-t2").foreach(p =>
      assert(f.table.fileIO.exists(new org.apache.hadoop.fs.Path(dir, p)), p))
    val b = f.table.onBranch("b")
    assert(b.name === "db.t$branch_b")
    assert(b.snapshotManager.listIds() === Seq(2L))
    assert(b.snapshotEntries.live(b.snapshotManager.latest().get).map(_.file.fileName).sorted === Seq("a1", "a2"))
    f.table.fileIO.writeBytes(f.dataPath("b9"), Array.emptyByteArray)
    new FileStoreCommit(b, "writer").append(Seq(message("b", file("b9", rows = 1))))
    assert(b.snapshotManager.listIds() === Seq(2L, 3L))
    assert(f.snapshotIds === (1L to 6L))
    assert(f.table.branchManager.names() === Seq("b"))
  }

  test("an empty branch has the table's schemas and no snapshot") {
    val f = LifecycleFixture()
    Branches.create(f.table, "empty", None)
    val b = f.table.onBranch("empty")
    assert(b.snapshotManager.listIds().isEmpty)
    assert(b.schema === f.table.schema)
  }

  test("names: taken, main, digits and unknown branches are refused naming the branch") {
    val f = LifecycleFixture()
    Branches.create(f.table, "b", None)
    assert(intercept[AlreadyExistsException](Branches.create(f.table, "b", None)).getMessage ===
      "Branch 'b' of table db.t already exists")
    assert(intercept[BadInputException](Branches.create(f.table, "main", None)).getMessage ===
      "Invalid branch name 'main': it names the main branch")
    assert(intercept[BadInputException](Branches.create(f.table, "123", None)).getMessage ===
      "Invalid branch name '123': it must not be all digits")
    assert(intercept[NotFoundException](f.table.onBranch("nope")).getMessage ===
      "Branch 'nope' of table db.t does not exist; its branches are b")
    assert(intercept[NotFoundException](Branches.create(f.table, "c", Some("nope"))).getMessage ===
      "Tag 'nope' of table db.t does not exist; the table has no tags")
    Branches.delete(f.table, "b")
    assert(f.table.branchManager.names().isEmpty)
  }

  test("expiring main keeps the files and manifests a branch still uses, even once its tag is deleted") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    Branches.create(f.table, "b", Some("t2"))
    Tags.delete(f.table, "t2")
    new SnapshotExpiration(f.table).expire(keepLast(2), later)
    assert(f.snapshotIds === Seq(5L, 6L))
    assert(f.dataFiles === Seq("a1", "a2", "a5", "b1", "b2"))
    val b = f.table.onBranch("b")
    assert(b.snapshotEntries.live(b.snapshotManager.latest().get).map(_.file.fileName).sorted === Seq("a1", "a2"))
    assert(new OrphanFiles(f.table).find(later).isEmpty)
    // once the branch is gone, its files are orphans
    Branches.delete(f.table, "b")
    assert(new OrphanFiles(f.table).find(later).map(_.getPath.getName).filter(n => n == "a1" || n == "a2").sorted ===
      Seq("a1", "a2"))
  }

  test("expiring a branch keeps the files main still uses") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t4", Some(4L), None)
    Branches.create(f.table, "b", Some("t4"))
    val b = f.table.onBranch("b")
    val c = new FileStoreCommit(b, "writer")
    f.table.fileIO.writeBytes(f.dataPath("b7"), Array.emptyByteArray)
    // the branch rewrites b1 into b7; main still holds b1
    c.append(Seq(lamina.table.commit.CommitMessage(lamina.table.TestTables.stringPartition("b"), 0, -1, Nil,
          compactBefore = Seq(file("b1", rows = 1)), compactAfter = Seq(file("b7", rows = 1).copy(level = 1)))))
    c.append(Seq(message("b", file("b2", rows = 1))))
    assert(new SnapshotExpiration(b).expire(keepLast(1), later) === 2)
    assert(f.exists("b1"))
    assert(f.live(6).contains("b1"))
  }

  test("fast_forward makes main the branch") {
    val f = LifecycleFixture()
    Tags.create(f.table, "t2", Some(2L), None)
    Branches.create(f.table, "b", Some("t2"))
    val b = f.table.onBranch("b")
    f.table.fileIO.writeBytes(f.dataPath("b9"), Array.emptyByteArray)
    new FileStoreCommit(b, "writer").append(Seq(message("b", file("b9", rows = 1))))
    Branches.fastForward(f.table, "b")
    assert(f.snapshotIds === Seq(1L, 2L, 3L))
    assert(f.table.snapshotManager.latestId() === Some(3L))
    assert(f.live(3) === Seq("a1", "a2", "b9"))
    assert(f.table.snapshotManager.tags.names() === Seq("t2"))
    assert(intercept[BadInputException](Branches.fastForward(f.table, "main")).getMessage ===
      "branch must name a branch other than main")
  }
}
