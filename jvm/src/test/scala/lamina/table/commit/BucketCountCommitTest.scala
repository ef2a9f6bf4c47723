package lamina.table.commit

import scala.collection.immutable.ArraySeq

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, stringPartition}
import lamina.table.scan.{BucketCounts, FileStoreScan}

/** A fixed-bucket partition holds files of one bucket count: a rescale replaces every file of its
 *  partitions, and a write for another count than the partition's, or a rescale that missed a file,
 *  is a conflict. */
class BucketCountCommitTest extends AnyFunSuite {
  private val root = TestTables.tempDir("bucket-counts")
  private var n = 0

  private def newTable(): FileStoreTable = {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema(Map("bucket" -> "2")))
  }

  private def add(p: String, bucket: Int, count: Int, name: String): CommitMessage =
    CommitMessage(stringPartition(p), bucket, count, Seq(file(name)))

  private def splitsOf(t: FileStoreTable, p: String) =
    new FileStoreScan(t, t.snapshotManager.latest().get).plan()
      .filter(s => java.util.Arrays.equals(s.partition, stringPartition(p)))

  private def counts(t: FileStoreTable) =
    BucketCounts.counts(t).map { case (k, v) => TestTables.stringPartitionValue(k.toArray) -> v }

  test("a rescale replaces a partition's files; later writes must use the partition's new count") {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(add("a", 0, 2, "a0"), add("a", 1, 2, "a1"), add("b", 0, 2, "b0")))
    assert(counts(t) === Map("a" -> 2, "b" -> 2))
    val id = c.rescale(splitsOf(t, "a"), Seq(add("a", 0, 5, "r0"), add("a", 4, 5, "r4")))
    assert(id.isDefined)
    val live = c.liveEntries(t.snapshotManager.latest().get)
    assert(live.map(e => (TestTables.stringPartitionValue(e.partition), e.file.fileName, e.totalBuckets)).toSet ===
      Set(("a", "r0", 5), ("a", "r4", 5), ("b", "b0", 2)))
    assert(counts(t) === Map("a" -> 5, "b" -> 2))
    assert(BucketCounts.differing(t).keySet === Set(ArraySeq.unsafeWrapArray(stringPartition("a"))))
    // a writer that read the count before the rescale
    val stale = intercept[CommitConflictException](c.append(Seq(add("a", 1, 2, "late"))))
    assert(stale.getMessage.contains("partition p=a now has 5 buckets"), stale.getMessage)
    assert(c.append(Seq(add("a", 3, 5, "ok"), add("b", 1, 2, "b1"), add("c", 0, 2, "c0"))).isDefined)
    // an overwrite replaces the partition whole, in any count; a partition it keeps must match
    assert(c.overwritePartitions(Seq(add("a", 0, 2, "o0")), Set(java.nio.ByteBuffer.wrap(stringPartition("a")))).isDefined)
    assert(counts(t)("a") === 2)
    intercept[CommitConflictException](
      c.overwritePartitions(Seq(add("a", 0, 2, "o1"), add("b", 0, 3, "o2")),
        Set(java.nio.ByteBuffer.wrap(stringPartition("a")))))
  }

  test("a rescale conflicts with a file added to its partitions after it read them") {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(add("a", 0, 2, "a0"), add("b", 0, 2, "b0")))
    val read = splitsOf(t, "a")
    c.append(Seq(add("a", 1, 2, "a1"), add("b", 1, 2, "b1")))
    val e = intercept[CommitConflictException](c.rescale(read, Seq(add("a", 2, 3, "r2"))))
    assert(e.getMessage.contains("file a1"), e.getMessage)
    // a file added to another partition does not conflict
    val again = splitsOf(t, "a")
    c.append(Seq(add("b", 0, 2, "b2")))
    assert(c.rescale(again, Seq(add("a", 2, 3, "r2"))).isDefined)
    assert(counts(t) === Map("a" -> 3, "b" -> 2))
  }

  test("a rescale conflicts with a concurrent removal of a file it read") {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(add("a", 0, 2, "a0"), add("a", 1, 2, "a1")))
    val read = splitsOf(t, "a")
    c.append(Seq(CommitMessage(stringPartition("a"), 0, 2, Seq.empty, compactBefore = Seq(file("a0")),
          compactAfter = Seq(file("a0c", level = 5)))))
    intercept[CommitConflictException](c.rescale(read, Seq(add("a", 0, 4, "r0"))))
  }
}
