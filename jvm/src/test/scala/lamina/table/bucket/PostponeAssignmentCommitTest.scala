package lamina.table.bucket

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.format.BinaryRowCodec
import lamina.table.{FileStorePaths, FileStoreTable, TestTables}
import lamina.table.TestTables.{file, stringPartition}
import lamina.table.commit.{CommitMessage, FileStoreCommit}
import lamina.table.scan.FileStoreScan
import lamina.types.IntType

/** A postpone assignment removes the waiting files it read and adds their rows to the fixed buckets in
 *  one commit: files arriving in bucket-postpone meanwhile wait for the next one; a file added to a
 *  partition's fixed buckets meanwhile (whose sequence numbers the new files may repeat) is a conflict. */
class PostponeAssignmentCommitTest extends AnyFunSuite {
  private val root = TestTables.tempDir("postpone-assignment")

  private def newTable(name: String): FileStoreTable = {
    val schema = TestTables.eventsSchema(Map("bucket" -> "-2")).copy(primaryKeys = Seq("id", "p"))
    TestTables.createTable(root.resolve(name), schema)
  }

  /** A data file of keys (id) 1 to 9. */
  private def keyed(name: String) = file(name).copy(minKey = BinaryRowCodec.serialize(InternalRow(1), Seq(IntType())),
    maxKey = BinaryRowCodec.serialize(InternalRow(9), Seq(IntType())))

  private def waiting(p: String, name: String): CommitMessage =
    CommitMessage(stringPartition(p), FileStorePaths.PostponeBucket, FileStorePaths.PostponeBucket, Seq(keyed(name)))

  private def fixed(p: String, bucket: Int, name: String): CommitMessage =
    CommitMessage(stringPartition(p), bucket, 2, Seq(keyed(name)))

  private def live(t: FileStoreTable): Set[(Int, String)] =
    new FileStoreScan(t, t.snapshotManager.latest().get).liveEntries().map(e => (e.bucket, e.file.fileName)).toSet

  test("files arriving in bucket-postpone during an assignment wait for the next one") {
    val t = newTable("arrive")
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(fixed("a", 0, "a0"), waiting("a", "w1"), waiting("b", "wb")))
    val plan = PostponeAssignment.plan(t, _ => true, parallelism = 4)
    assert(plan.splits.map(_.files.head.fileName).toSet === Set("w1", "wb"))
    assert(plan.kept === Set("a0"))
    assert(plan.counts.map { case (p, n) => TestTables.stringPartitionValue(p.toArray) -> n } === Map("a" -> 2, "b" -> 4))
    c.append(Seq(waiting("a", "w2")))
    assert(PostponeAssignment.commit(plan, Seq(fixed("a", 1, "n1"))).isDefined)
    assert(live(t) === Set((0, "a0"), (1, "n1"), (-2, "w2")))
  }

  test("a file added to the fixed buckets of a partition during its assignment is a conflict") {
    val t = newTable("conflict")
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(fixed("a", 0, "a0"), waiting("a", "w1")))
    val plan = PostponeAssignment.plan(t, _ => true, parallelism = 4)
    c.append(Seq(fixed("a", 1, "a1")))
    val e = intercept[CommitConflictException](PostponeAssignment.commit(plan, Seq(fixed("a", 1, "n1"))))
    assert(e.getMessage.contains("Postpone compaction of table db.t conflicts with a concurrent commit: file a1"),
      e.getMessage)
    assert(live(t) === Set((0, "a0"), (1, "a1"), (-2, "w1")))
    // a waiting file another compaction assigned first
    val again = PostponeAssignment.plan(t, _ => true, parallelism = 4)
    assert(PostponeAssignment.commit(again, Seq(fixed("a", 0, "n0"))).isDefined)
    intercept[CommitConflictException](PostponeAssignment.commit(again, Seq(fixed("a", 0, "n2"))))
  }
}
