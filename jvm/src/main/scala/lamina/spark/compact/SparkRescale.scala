package lamina.spark.compact

import scala.collection.immutable.ArraySeq

import org.apache.spark.Partitioner
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import lamina.format.{Bucket, KeyHashFunction}
import lamina.mergetree.KeyOrder
import lamina.spark.DataFileFormats
import lamina.spark.read.{DataFileReaders, KeyValueReaderBuilder}
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.bucket.{BucketRescale, RescaleTasks}
import lamina.table.commit.CommitMessage
import lamina.table.options.CoreOptions
import lamina.table.sink.{AppendTableWrite, WriteBuckets}
import lamina.types.SparkTypes

/** A rescale's rewrite as one Spark job of the active session: each old bucket is read by one task
 *  (a primary-key bucket merged, deletion vectors applied), every row keyed by its partition and new
 *  bucket, shuffled so that each new bucket is written by one task; a primary-key bucket's rows
 *  sorted by key there (Spark spills as it needs) into one sorted run ([[BucketRescale.SortedRunWriter]]),
 *  an append bucket's rows in their order of arrival ([[AppendTableWrite]]). `progress` is told, on
 *  the driver, as each writing task finishes. */
final class SparkRescale(progress: Option[String => Unit]) extends RescaleTasks {
  import SparkRescale._

  override def rewrite(plan: BucketRescale.Plan): Seq[CommitMessage] = {
    if (plan.splits.isEmpty) return Seq.empty
    val spark = SparkSession.active
    val table = plan.table
    val n = plan.bucketNum
    val schema = table.schema
    val writers = DataFileFormats.writers(spark, table)
    val schemaIds = plan.splits.flatMap(_.files.map(_.schemaId)).distinct
    val struct = SparkTypes.toSparkStruct(schema.fields)
    val bucketOrdinals = schema.bucketKeys.map(schema.indexOf).toArray
    val bucketTypes = schema.bucketKeys.map(k => schema.field(k).get.dataType)
    val sc = spark.sparkContext
    val inputs = sc.parallelize(plan.splits, math.max(1, math.min(plan.splits.size, sc.defaultParallelism)))
    val target = CoreOptions.TargetFileSize.getOrDefault(table.options)
    val inputBytes = plan.splits.flatMap(_.files).map(_.fileSize).sum
    val tasks = math.max(1L,
      math.min(plan.partitions.toLong * n,
        math.max(sc.defaultParallelism.toLong, (inputBytes + target - 1) / target))).toInt
    val partitioner = new NewBucketPartitioner(tasks)
    val written =
      if (table.isPrimaryKeyTable) {
        val readers = KeyValueReaderBuilder.build(spark, table, schemaIds, Seq.empty)
        val layout = KeyValueLayout(schema)
        val keyRefs = layout.keyOrdinals.toSeq.zip(layout.keyFields).map { case (i, f) =>
          BoundReference(i, SparkTypes.toSpark(f.dataType), nullable = false)
        }
        val keyed = inputs.mapPartitions { splits =>
          val unsafe = UnsafeProjection.create(struct)
          val keyOf = UnsafeProjection.create(keyRefs)
          val hash = new KeyHashFunction(bucketOrdinals, bucketTypes)
          splits.flatMap { s =>
            readers.mergedRecords(s, skipLevel0 = false, dropDeletes = true).map { kv =>
              val v = unsafe(kv.value).copy()
              (NewBucketKey(s.partition, Bucket.bucketOfHash(hash(v), n), keyOf(v).copy()),
                (kv.sequenceNumber, kv.valueKind, v))
            }
          }
        }
        implicit val order: Ordering[NewBucketKey] = new NewBucketOrdering(keyRefs.map(_.dataType))
        keyed.repartitionAndSortWithinPartitions(partitioner)
          .mapPartitions { records =>
            val out = new BucketRescale.SortedRunWriter(table, writers, n)
            try {
              records.foreach { case (k, (sequence, kind, value)) => out.write(k.partition, k.bucket, value, kind, sequence) }
              Iterator.single(out.finish().toArray)
            } catch { case e: Throwable => out.abort(); throw e }
          }
      } else {
        val readers = DataFileReaders.factory(spark, table, schemaIds, struct, Seq.empty)
        val counts = plan.splits.map(s => ArraySeq.unsafeWrapArray(s.partition) -> n).toMap
        val keyed = inputs.mapPartitions { splits =>
          val unsafe = UnsafeProjection.create(struct)
          val hash = new KeyHashFunction(bucketOrdinals, bucketTypes)
          splits.flatMap { s =>
            // in the order the files were written: a key's rows keep their order
            readers.rowsOf(s.copy(files = s.files.sortBy(f => (f.minSequenceNumber, f.fileName)))).map { r =>
              val v = unsafe(r).copy()
              (NewBucketKey(s.partition, Bucket.bucketOfHash(hash(v), n), null), v)
            }
          }
        }
        keyed.partitionBy(partitioner).mapPartitionsWithIndex { (task, rows) =>
          val sink = new AppendTableWrite(table, writers, task, WriteBuckets(counts))
          try {
            rows.foreach { case (_, r) => sink.write(r) }
            Iterator.single(sink.prepareCommit().toArray)
          } catch { case e: Throwable => sink.abort(); throw e }
        }
      }
    val tasksRun = written.getNumPartitions
    var done = 0
    TaskResults.collect(written) { (_, _) =>
      done += 1
      progress.foreach(say => say(s"lamina: rescale ${table.name} to $n buckets: $done/$tasksRun tasks done"))
    }
  }
}

object SparkRescale {

  /** Where a row goes: its partition, its bucket in the new count, and (primary-key tables) its key. */
  final case class NewBucketKey(partition: Array[Byte], bucket: Int, key: UnsafeRow) {
    override def hashCode(): Int = java.util.Arrays.hashCode(partition) * 31 + bucket
    override def equals(o: Any): Boolean = o match {
      case k: NewBucketKey => bucket == k.bucket && java.util.Arrays.equals(partition, k.partition) && key == k.key
      case _ => false
    }
  }

  /** One task per new (partition, bucket), several per task. */
  final class NewBucketPartitioner(tasks: Int) extends Partitioner {
    override def numPartitions: Int = tasks
    override def getPartition(key: Any): Int = {
      val k = key.asInstanceOf[NewBucketKey]
      Math.floorMod(java.util.Arrays.hashCode(k.partition) * 31 + k.bucket, tasks)
    }
  }

  /** By partition, bucket, then key in the merge tree's order of keys of `keyTypes`. */
  final class NewBucketOrdering(keyTypes: Seq[DataType]) extends Ordering[NewBucketKey] {
    @transient private lazy val keys: Ordering[InternalRow] = KeyOrder.orderingOf(keyTypes)
    override def compare(a: NewBucketKey, b: NewBucketKey): Int = {
      val p = java.util.Arrays.compareUnsigned(a.partition, b.partition)
      if (p != 0) p
      else if (a.bucket != b.bucket) Integer.compare(a.bucket, b.bucket)
      else keys.compare(a.key, b.key)
    }
  }
}
