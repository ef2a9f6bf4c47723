package lamina.table.bucket

import java.nio.ByteBuffer

import scala.collection.mutable

import lamina.table.FileStoreTable
import lamina.table.manifest.IndexManifestEntry
import lamina.table.options.CoreOptions

/** The bucket assignment of one write task into a dynamic-bucket table ([[DynamicBucketPlan]]): per
 *  (partition, assigner group) met, the [[PartitionBuckets]] loaded from the hash index of the plan's
 *  snapshot, read once per task. */
final class DynamicBucketAssigner(table: FileStoreTable, plan: DynamicBucketPlan) {
  private val targetRows = CoreOptions.DynamicBucketTargetRowNum.getOrDefault(table.options)
  private val maxBuckets = CoreOptions.DynamicBucketMaxBuckets.getOrDefault(table.options)
  private val partitions = mutable.LinkedHashMap.empty[ByteBuffer, Array[PartitionBuckets]]

  /** The hash index files of the plan's snapshot, by serialized partition. */
  private lazy val indexFiles: Map[ByteBuffer, Seq[IndexManifestEntry]] = plan.snapshotId
    .flatMap(id => table.snapshotManager.snapshot(id).indexManifest)
    .map(table.manifestStore.readIndexManifest).getOrElse(Seq.empty)
    .filter(_.indexFile.indexType == HashIndexFile.IndexType)
    .groupBy(e => ByteBuffer.wrap(e.partition))

  /** The groups of a serialized partition, loaded as each is first met. */
  def groupsOf(partition: Array[Byte]): Array[PartitionBuckets] =
    partitions.getOrElseUpdate(ByteBuffer.wrap(partition), new Array[PartitionBuckets](plan.groups))

  /** The bucket of a key by its hash, in the partition whose groups `groups` are ([[groupsOf]]). */
  def assign(partition: Array[Byte], groups: Array[PartitionBuckets], hash: Int): Int = {
    val g = plan.groupOf(hash)
    var buckets = groups(g)
    if (buckets == null) {
      buckets = new PartitionBuckets(plan, g, targetRows, maxBuckets)
      val files = indexFiles.getOrElse(ByteBuffer.wrap(partition), Seq.empty).map(e => e.bucket -> e.indexFile)
      buckets.load(files, HashIndexFile.read(table, _))
      groups(g) = buckets
    }
    buckets.assign(hash)
  }

  /** Writes the hash index of every bucket that was given new keys: (serialized partition, bucket,
   *  change). A failure leaves none of the files written behind. */
  def changes(): Seq[(Array[Byte], Int, HashIndexChange)] = {
    val written = mutable.ArrayBuffer.empty[HashIndexChange]
    try partitions.toSeq.flatMap { case (partition, groups) =>
        groups.toSeq.filter(_ != null).flatMap(_.changes(HashIndexFile.write(table, _))).map { case (b, c) =>
          written += c
          (partition.array(), b, c)
        }
      }
    catch {
      case e: Throwable =>
        written.foreach(c => table.fileIO.deleteQuietly(table.paths.indexFile(c.after.fileName)))
        throw e
    }
  }
}
