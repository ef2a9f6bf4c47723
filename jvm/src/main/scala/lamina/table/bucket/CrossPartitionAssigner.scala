package lamina.table.bucket

import java.io.{Closeable, File}
import java.nio.ByteBuffer

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.{BinaryRowCodec, Bucket}
import lamina.lookup.{LocalFileCache, SpillingIndex}
import lamina.table.FileStoreTable
import lamina.table.options.CoreOptions

/** The global key index of one assigner group of a cross-partition upsert ([[CrossPartitionPlan]]),
 *  Paimon's `GlobalIndexAssigner`: for each key of the group, the partition and bucket holding it, in
 *  a [[SpillingIndex]] under `localDir` (key: the trimmed primary key's binary row; value: a partition
 *  id of this assigner and the bucket, two big-endian ints). Bootstrapped from its group's share of
 *  the live keys, which the write's bootstrap scan read and shuffled by group ([[KeyIndexShares]]), and
 *  the live key count of every bucket, kept for sizing. A new key goes
 *  to the first bucket of its partition this group owns (`b % groups == group`) holding fewer than
 *  `dynamic-bucket.target-row-num` keys, else to the lowest free bucket it owns (past
 *  `dynamic-bucket.max-buckets`, to its least filled one). A key found in another partition is
 *  handled by the merge engine's [[ExistingKeyPolicy]]. Not thread-safe: one per task. */
final class CrossPartitionAssigner(table: FileStoreTable, plan: CrossPartitionPlan, localDir: File) extends Closeable {
  private val schema = table.schema
  private val keyTypes = schema.trimmedPrimaryKeys.map(k => schema.field(k).get.dataType)
  private val targetRows = CoreOptions.DynamicBucketTargetRowNum.getOrDefault(table.options)
  private val maxBuckets = CoreOptions.DynamicBucketMaxBuckets.getOrDefault(table.options)
  private val policy = ExistingKeyPolicy.of(table.capabilities.mergeEngine)
  private val index = new SpillingIndex(localDir, table.mergeTree.lookupStore,
    LocalFileCache.cacheManager(table.mergeTree.lookupStore),
    math.max(1L, CoreOptions.WriteBufferSize.getOrDefault(table.options) / 2))

  private val partitionIds = mutable.HashMap.empty[ByteBuffer, Int]
  private val partitions = mutable.ArrayBuffer.empty[Array[Byte]]
  private val bucketRows = mutable.HashMap.empty[Int, mutable.TreeMap[Int, Long]]
  private var group = -1

  /** The key bytes of `row`'s trimmed primary key at `ordinals`. */
  def keyOf(row: InternalRow, ordinals: Array[Int]): Array[Byte] = BinaryRowCodec.encode(row, ordinals, keyTypes)

  /** Where the record of `key` (with hash `hash`) in `partition` goes. The first call bootstraps the
   *  index for the key's group; every later key must be of the same group. */
  def place(key: Array[Byte], hash: Int, partition: Array[Byte]): KeyPlacement = {
    val g = Bucket.bucketOfHash(hash, plan.groups)
    if (group < 0) { group = g; bootstrap() }
    else if (g != group)
      throw new IllegalStateException(s"Write into table ${table.name}: a task of assigner group $group was " +
        s"handed a key of group $g (the rows were not clustered by key hash); nothing was committed")
    val partId = idOf(partition)
    val found = index.get(key)
    if (found == null) return KeyPlacement.Here(newKey(key, partId))
    val wrapped = ByteBuffer.wrap(found)
    val (oldId, oldBucket) = (wrapped.getInt(0), wrapped.getInt(4))
    if (oldId == partId) return KeyPlacement.Here(oldBucket)
    policy match {
      case ExistingKeyPolicy.DeleteOld =>
        val counts = bucketsOf(oldId)
        counts.updateWith(oldBucket)(_.map(n => math.max(0L, n - 1)))
        KeyPlacement.Moved(partitions(oldId), oldBucket, newKey(key, partId))
      case ExistingKeyPolicy.UseOld => KeyPlacement.IntoOld(partitions(oldId), oldBucket)
      case ExistingKeyPolicy.SkipNew => KeyPlacement.Dropped
    }
  }

  /** Runs of the index spilled to disk (for tests and metrics). */
  def spilledRuns: Int = index.spilledRuns

  override def close(): Unit = index.close()

  private def newKey(key: Array[Byte], partId: Int): Int = {
    val bucket = newBucket(bucketsOf(partId))
    index.put(key, value(partId, bucket))
    bucket
  }

  private def value(partId: Int, bucket: Int): Array[Byte] = ByteBuffer.allocate(8).putInt(partId).putInt(bucket).array()

  private def idOf(partition: Array[Byte]): Int =
    partitionIds.getOrElseUpdate(ByteBuffer.wrap(partition), { partitions += partition; partitions.length - 1 })

  private def bucketsOf(partId: Int): mutable.TreeMap[Int, Long] =
    bucketRows.getOrElseUpdate(partId, mutable.TreeMap.empty[Int, Long])

  /** The bucket a new key of a partition whose buckets hold `counts` keys goes to, counted in. */
  private def newBucket(counts: mutable.TreeMap[Int, Long]): Int = {
    def owned(b: Int) = b % plan.groups == group
    val bucket = counts.find { case (b, n) => owned(b) && n < targetRows }.map(_._1).getOrElse {
      var b = group
      while (counts.contains(b)) b += plan.groups
      if (maxBuckets > 0 && b >= maxBuckets) counts.filter(e => owned(e._1)).minByOption(_._2).map(_._1).getOrElse(b)
      else b
    }
    counts.update(bucket, counts.getOrElse(bucket, 0L) + 1)
    bucket
  }

  /** Takes in this group's share of the live keys ([[KeyIndexShares]]) and every bucket's key count. */
  private def bootstrap(): Unit = plan.shares.foreach { shares =>
    shares.partitions.foreach(idOf) // first: the share's partition indices are the ids
    shares.liveKeys.foreach { case ((partId, bucket), n) => bucketsOf(partId).update(bucket, n) }
    KeyIndexShareFile.read(table.fileIO, shares.fileOf(group))((partId, bucket, key) =>
      index.put(key, value(partId, bucket)))
  }
}
