package lamina.table.bucket

import scala.collection.mutable

import lamina.table.manifest.IndexFileMeta

/** The buckets of one partition as one assigner group sees them ([[DynamicBucketPlan]]): where each
 *  known key of its group lives (from the hash index of every bucket of the partition), and the
 *  buckets it owns with their hashes. A new key goes to the first owned bucket holding fewer than
 *  `targetRows` keys, else to a new owned bucket, the lowest id free; past `maxBuckets` (-1: no
 *  limit), to the owned bucket holding fewest. Not thread-safe: one per task. */
final class PartitionBuckets(plan: DynamicBucketPlan, group: Int, targetRows: Long, maxBuckets: Int) {
  import PartitionBuckets.Owned

  private var bucketOf = new IntIntMap()
  private val owned = mutable.TreeMap.empty[Int, Owned]
  private var filesRead = Set.empty[String]

  /** The owned bucket new keys go to while it has room, found again once it is full. */
  private var filling = -1
  private var fillingOwned: Owned = _

  /** Reads the hash index of the partition: `files` by bucket, `read` decoding one. */
  def load(files: Seq[(Int, IndexFileMeta)], read: IndexFileMeta => Array[Int]): Unit = {
    filesRead = files.map(_._2.fileName).toSet
    // about 1 / groups of the partition's keys are this group's
    bucketOf = new IntIntMap(expected = (files.map(_._2.rowCount).sum / plan.groups + 16).min(1 << 28).toInt)
    files.foreach { case (bucket, meta) =>
      val hashes = read(meta)
      var i = 0
      while (i < hashes.length) {
        if (plan.groupOf(hashes(i)) == group) bucketOf.put(hashes(i), bucket)
        i += 1
      }
      if (bucket % plan.groups == group) {
        val o = owned.getOrElseUpdate(bucket, new Owned)
        o.files += meta.fileName
        o.old += hashes
        o.rows += hashes.length
      }
    }
  }

  /** The bucket of a key of this group by its hash. */
  def assign(hash: Int): Int = {
    val known = bucketOf.get(hash)
    if (known >= 0) return known
    if (fillingOwned == null || fillingOwned.rows >= targetRows) {
      filling = owned.find(_._2.rows < targetRows).map(_._1).getOrElse(newBucket())
      fillingOwned = owned(filling)
    }
    bucketOf.put(hash, filling)
    fillingOwned.added.addOne(hash)
    fillingOwned.rows += 1
    filling
  }

  private def newBucket(): Int = {
    var b = group
    while (owned.contains(b)) b += plan.groups
    if (maxBuckets > 0 && b >= maxBuckets && owned.nonEmpty) owned.minBy(_._2.rows)._1
    else { owned.put(b, new Owned); b }
  }

  /** Each owned bucket that was given new keys, with every hash it now holds and the change to commit
   *  once `write` stored them. */
  def changes(write: Array[Int] => IndexFileMeta): Seq[(Int, HashIndexChange)] =
    owned.toSeq.filter(_._2.added.length > 0).map { case (bucket, o) =>
      val added = o.added.result()
      val all = new Array[Int](o.old.map(_.length).sum + added.length)
      var at = 0
      (o.old :+ added).foreach { a => System.arraycopy(a, 0, all, at, a.length); at += a.length }
      bucket -> HashIndexChange(filesRead, o.files.toSet, write(all))
    }
}

object PartitionBuckets {
  private final class Owned {
    val files = mutable.ArrayBuffer.empty[String]
    val old = mutable.ArrayBuffer.empty[Array[Int]]
    val added = new mutable.ArrayBuilder.ofInt

    /** Keys in the bucket: those of its index files and those added. */
    var rows = 0L
  }
}
