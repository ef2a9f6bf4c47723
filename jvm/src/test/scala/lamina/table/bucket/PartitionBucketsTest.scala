package lamina.table.bucket

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.manifest.IndexFileMeta

class PartitionBucketsTest extends AnyFunSuite {
  private def file(name: String, n: Int) = IndexFileMeta(HashIndexFile.IndexType, name, 4L * n, n.toLong, None, None)

  /** Hashes `from`, `from + step`, ... of group `g` of `groups` (non-negative, so the group is `h % groups`). */
  private def ofGroup(g: Int, groups: Int, count: Int, from: Int = 0): Seq[Int] =
    Iterator.from(from).filter(_ % groups == g).take(count).toSeq

  test("new keys fill the group's own buckets to the target, lowest first, then open the next it owns") {
    val plan = DynamicBucketPlan(None, 3)
    val b = new PartitionBuckets(plan, group = 1, targetRows = 2, maxBuckets = -1)
    b.load(Seq.empty, _ => Array.empty)
    assert(ofGroup(1, 3, 5).map(b.assign) === Seq(1, 1, 4, 4, 7))
    // a key seen before keeps its bucket
    assert(b.assign(ofGroup(1, 3, 1).head) === 1)
    val changes = b.changes(all => file(s"new-${all.length}", all.length))
    assert(changes.map { case (bucket, c) => (bucket, c.after.rowCount, c.replaced) } ===
      Seq((1, 2L, Set.empty), (4, 2L, Set.empty), (7, 1L, Set.empty)))
  }

  test("known keys of every bucket are found; only owned buckets take new keys, with their old hashes kept") {
    val plan = DynamicBucketPlan(None, 2)
    val index = Map(file("i0", 2) -> Array(10, 11), file("i1", 1) -> Array(12), file("i3", 1) -> Array(21))
    val b = new PartitionBuckets(plan, group = 0, targetRows = 3, maxBuckets = -1)
    b.load(Seq(0 -> file("i0", 2), 1 -> file("i1", 1), 3 -> file("i3", 1)), m => index(m))
    // 10 and 12 are in group 0 (found where they are, bucket 1 included); 11 and 21 are not this group's
    assert(b.assign(12) === 1)
    assert(b.assign(10) === 0)
    assert(b.changes(_ => fail("nothing new")) === Seq.empty)
    assert(b.assign(14) === 0) // bucket 0 has room for one more
    assert(b.assign(16) === 2) // full: the lowest free bucket of group 0
    val changes = b.changes(all => file(all.sorted.mkString("-"), all.length)).toMap
    assert(changes(0).after.fileName === "10-11-14")
    assert(changes(0).replaced === Set("i0"))
    assert(changes(0).partitionRead === Set("i0", "i1", "i3"))
    assert(changes(2).after.fileName === "16" && changes(2).replaced.isEmpty)
  }

  test("past max-buckets, a new key goes to the group's least filled bucket") {
    val plan = DynamicBucketPlan(None, 2)
    val b = new PartitionBuckets(plan, group = 0, targetRows = 2, maxBuckets = 3)
    b.load(Seq.empty, _ => Array.empty)
    val buckets = ofGroup(0, 2, 7).map(b.assign)
    assert(buckets.take(4) === Seq(0, 0, 2, 2))
    assert(buckets.drop(4).toSet.subsetOf(Set(0, 2)))
    assert(buckets.count(_ == 0) - buckets.count(_ == 2) <= 1)
  }

  test("the plan's groups: abs(hash % groups), for negative hashes too") {
    val plan = DynamicBucketPlan(None, 4)
    assert(Seq(0, 5, -5, Int.MinValue, Int.MaxValue).map(plan.groupOf) === Seq(0, 1, 1, 0, 3))
  }
}
