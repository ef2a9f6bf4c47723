package lamina.spark.compact

import scala.collection.immutable.ArraySeq
import scala.reflect.ClassTag

import org.apache.spark.{Partitioner, SparkContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import lamina.format.{Bucket, KeyHashFunction}
import lamina.mergetree.KeyOrder
import lamina.spark.DataFileFormats
import lamina.spark.read.{DataFileReaders, KeyValueReaderBuilder}
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.bucket.{BucketRescale, PostponeAssignment, PostponeTasks, RescaleTasks}
import lamina.table.commit.CommitMessage
import lamina.table.scan.DataSplit
import lamina.table.options.CoreOptions
import lamina.table.sink.{AppendTableWrite, KeyValueTableWrite, WriteBuckets}
import lamina.types.SparkTypes

/** A rescale's rewrite as one Spark job of the active session: each old bucket is read by one task
 *  (a primary-key bucket merged, deletion vectors applied), every row keyed by its partition and new
 *  bucket, shuffled so that each new bucket is written by one task; a primary-key bucket's rows
 *  sorted by key there (Spark spills as it needs) into one sorted run ([[BucketRescale.SortedRunWriter]]),
 *  an append bucket's rows in their order of arrival ([[AppendTableWrite]]). `progress` is told, on
 *  the driver, as each writing task finishes.
 *
 *  A postpone assignment ([[assign]]) goes the same way: each waiting file read by one task, its
 *  records keyed by partition, bucket, key and their place in the order the files were written, and
 *  each new bucket's records, sorted so, written like a write into the bucket ([[KeyValueTableWrite]],
 *  which merges a key's records). */
final class SparkRescale(progress: Option[String => Unit]) extends RescaleTasks with PostponeTasks {
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
    val tasks = writeTasks(sc, table, plan.splits, plan.partitions.toLong * n)
    val partitioner = new NewBucketPartitioner(tasks)
    val written =
      if (table.isPrimaryKeyTable) {
        val readers = KeyValueReaderBuilder.build(spark, table, schemaIds, Seq.empty)
        val keyRefs = keyReferences(table)
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
        sortedByNewBucket(keyed, tasks, keyRefs.map(_.dataType))
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
    collect(written, s"rescale ${table.name} to $n buckets")
  }

  override def assign(plan: PostponeAssignment.Plan): Seq[CommitMessage] = {
    if (plan.isEmpty) return Seq.empty
    val spark = SparkSession.active
    val table = plan.table
    val schema = table.schema
    val writers = DataFileFormats.writers(spark, table)
    val readers = KeyValueReaderBuilder.build(spark, table, plan.splits.flatMap(_.files.map(_.schemaId)).distinct, Seq.empty)
    val struct = SparkTypes.toSparkStruct(schema.fields)
    val bucketOrdinals = schema.bucketKeys.map(schema.indexOf).toArray
    val bucketTypes = schema.bucketKeys.map(k => schema.field(k).get.dataType)
    val keyRefs = keyReferences(table)
    val counts = plan.counts
    val bases = plan.sequenceBases
    val sc = spark.sparkContext
    // a file's place in the order of writing: its rank, then its records' order in it
    val inputs = sc.parallelize(plan.splits.zipWithIndex, math.max(1, math.min(plan.splits.size, sc.defaultParallelism)))
    val tasks = writeTasks(sc, table, plan.splits, counts.values.map(_.toLong).sum)
    val keyed = inputs.mapPartitions { splits =>
      val unsafe = UnsafeProjection.create(struct)
      val keyOf = UnsafeProjection.create(keyRefs)
      val hash = new KeyHashFunction(bucketOrdinals, bucketTypes)
      splits.flatMap { case (s, rank) =>
        val n = counts(ArraySeq.unsafeWrapArray(s.partition))
        s.files.iterator.flatMap(f => readers.readFile(s.bucketPath, f)).zipWithIndex.map { case (kv, i) =>
          val v = unsafe(kv.value).copy()
          (NewBucketKey(s.partition, Bucket.bucketOfHash(hash(v), n), keyOf(v).copy(), (rank.toLong << 32) | i),
            (kv.valueKind, v))
        }
      }
    }
    val written = sortedByNewBucket(keyed, tasks, keyRefs.map(_.dataType)).mapPartitionsWithIndex { (task, records) =>
      val out = new KeyValueTableWrite(table, writers, bases, task, uniqueKeys = false, buckets = WriteBuckets(counts))
      try {
        records.foreach { case (_, (kind, value)) => out.write(value, kind, checkNulls = false) }
        Iterator.single(out.prepareCommit().toArray)
      } catch { case e: Throwable => out.abort(); throw e }
    }
    collect(written, s"compact ${table.name}: assign ${plan.files} postponed files to buckets")
  }

  override def parallelism: Int = SparkSession.active.sparkContext.defaultParallelism

  /** The messages of every writing task of `written`, saying the progress as each finishes. */
  private def collect(written: RDD[Array[CommitMessage]], what: String): Seq[CommitMessage] = {
    val tasksRun = written.getNumPartitions
    var done = 0
    TaskResults.collect(written) { (_, _) =>
      done += 1
      progress.foreach(say => say(s"lamina: $what: $done/$tasksRun tasks done"))
    }
  }
}

object SparkRescale {

  /** The writing tasks of a rewrite into `buckets` new (partition, bucket)s from `splits`: one per
   *  target file size of input, at least Spark's default parallelism, at most one per new bucket. */
  private def writeTasks(sc: SparkContext, table: FileStoreTable, splits: Seq[DataSplit], buckets: Long): Int = {
    val target = CoreOptions.TargetFileSize.getOrDefault(table.options)
    val inputBytes = splits.flatMap(_.files).map(_.fileSize).sum
    math.max(1L, math.min(buckets, math.max(sc.defaultParallelism.toLong, (inputBytes + target - 1) / target))).toInt
  }

  /** The primary key's columns of a table row, in the merge tree's key order. */
  private def keyReferences(table: FileStoreTable): Seq[BoundReference] = {
    val layout = KeyValueLayout(table.schema)
    layout.keyOrdinals.toSeq.zip(layout.keyFields).map { case (i, f) =>
      BoundReference(i, SparkTypes.toSpark(f.dataType), nullable = false)
    }
  }

  /** `keyed` with each new (partition, bucket)'s records in one task, sorted by [[NewBucketOrdering]]
   *  (Spark spills as it needs). */
  private def sortedByNewBucket[V: ClassTag](keyed: RDD[(NewBucketKey, V)], tasks: Int,
      keyTypes: Seq[DataType]): RDD[(NewBucketKey, V)] = {
    implicit val order: Ordering[NewBucketKey] = new NewBucketOrdering(keyTypes)
    keyed.repartitionAndSortWithinPartitions(new NewBucketPartitioner(tasks))
  }

  /** Where a row goes: its partition, its bucket in the new count, (primary-key tables) its key, and
   *  (postpone assignments) its place in the order the records were written. */
  final case class NewBucketKey(partition: Array[Byte], bucket: Int, key: UnsafeRow, ordinal: Long = 0L) {
    override def hashCode(): Int = java.util.Arrays.hashCode(partition) * 31 + bucket
    override def equals(o: Any): Boolean = o match {
      case k: NewBucketKey =>
        bucket == k.bucket && java.util.Arrays.equals(partition, k.partition) && key == k.key && ordinal == k.ordinal
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

  /** By partition, bucket, key in the merge tree's order of keys of `keyTypes`, then ordinal. */
  final class NewBucketOrdering(keyTypes: Seq[DataType]) extends Ordering[NewBucketKey] {
    @transient private lazy val keys: Ordering[InternalRow] = KeyOrder.orderingOf(keyTypes)
    override def compare(a: NewBucketKey, b: NewBucketKey): Int = {
      val p = java.util.Arrays.compareUnsigned(a.partition, b.partition)
      if (p != 0) p
      else if (a.bucket != b.bucket) Integer.compare(a.bucket, b.bucket)
      else {
        val k = keys.compare(a.key, b.key)
        if (k != 0) k else java.lang.Long.compare(a.ordinal, b.ordinal)
      }
    }
  }
}
