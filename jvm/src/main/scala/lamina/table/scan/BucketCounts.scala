package lamina.table.scan

import scala.collection.immutable.ArraySeq

import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.ManifestEntry

/** The bucket count of each partition of a fixed-bucket table that has live files, by serialized
 *  partition: the `_TOTAL_BUCKETS` of its files. A partition keeps the count it was written with
 *  until `CALL sys.rescale` rewrites it (or an overwrite replaces it), whatever the table's `bucket`
 *  says now; a partition without files takes the table's. A rescale deletes every file of the old
 *  count in the commit that adds the new ones, so the files last added tell the count of the live
 *  ones; with the number of live files per partition, the counts are an [[AddedFilesFold]]. */
object BucketCounts extends AddedFilesFold[Map[ArraySeq[Byte], PartitionFileCount]] {
  private type Live = PartitionFileCount
  private val Live = PartitionFileCount

  override protected def empty: Map[ArraySeq[Byte], Live] = Map.empty

  override protected def add(state: Map[ArraySeq[Byte], Live], changes: IterableOnce[ManifestEntry]): Map[ArraySeq[Byte], Live] =
    // files waiting in bucket-postpone have no count of their partition's
    changes.iterator.filter(_.bucket != FileStorePaths.PostponeBucket).foldLeft(state) { (m, e) =>
      val k = ArraySeq.unsafeWrapArray(e.partition)
      val files = m.get(k).map(_.files).getOrElse(0)
      if (e.isAdd) m.updated(k, Live(e.totalBuckets, files + 1))
      else if (files <= 1) m - k
      else m.updated(k, m(k).copy(files = files - 1))
    }

  /** The count of each partition with live files at the table's latest snapshot. */
  def counts(table: FileStoreTable): Map[ArraySeq[Byte], Int] = of(table).map { case (k, l) => k -> l.buckets }

  /** The partitions of a fixed-bucket table whose count is not the table's `bucket`, every partition
   *  of a postpone-bucket table (files in `bucket-postpone` aside), nothing for other tables: what a
   *  writer needs beside the table to put each row in its partition's bucket. */
  def differing(table: FileStoreTable): Map[ArraySeq[Byte], Int] =
    if (!table.hasFixedBucketCounts) Map.empty
    else counts(table).filter { case (_, n) => n != table.numBuckets && n > 0 }
}

/** A partition's bucket count and how many live files it has. */
final case class PartitionFileCount(buckets: Int, files: Int)
