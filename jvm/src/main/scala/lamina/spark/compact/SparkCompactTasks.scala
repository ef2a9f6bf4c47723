package lamina.spark.compact

import java.io.File

import scala.reflect.ClassTag

import org.apache.spark.SparkFiles
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow

import lamina.lookup.cache.CacheCounters
import lamina.table.compact.{AppendCompaction, BucketCompaction, CompactTasks, Compactor}
import lamina.spark.{DataFileFormats, JobDescription}
import lamina.spark.read.{DataFileReaders, KeyValueReaderBuilder}
import lamina.table.FileStoreTable
import lamina.table.bucket.PostponeAssignment
import lamina.table.compact.AppendCompactTasks
import lamina.table.commit.CommitMessage
import lamina.table.scan.DataSplit
import lamina.table.sort.SortKey
import lamina.types.SparkTypes

/** Compaction tasks as Spark tasks of the active session: readers and writers prepared once on the
 *  driver, one Spark task per batch of bucket compactions (append tables: [[SparkAppendRewrite]]), the
 *  job described in Spark's UI ([[JobDescription]]). Local lookup files (tables with deletion vectors)
 *  go into the executor's Spark local directory, where the executor's next compaction tasks find them.
 *  `progress`: where a line goes as each batch of buckets finishes (`lamina: compact db.t: 8/12 buckets done`),
 *  or, in a sorted rewrite, each range of keys is written. */
class SparkCompactTasks(progress: Option[String => Unit]) extends CompactTasks with AppendCompactTasks {
  @volatile private var lookupTotals = (0L, 0L)

  /** The lookup cache's hits and misses of the compaction jobs this instance ran. */
  def lookupCache: (Long, Long) = lookupTotals

  private lazy val postponed = new SparkRescale(progress)

  override def assign(plan: PostponeAssignment.Plan): Seq[CommitMessage] = postponed.assign(plan)

  override def parallelism: Int = postponed.parallelism

  override def run(table: FileStoreTable, work: Seq[BucketCompaction]): Seq[CommitMessage] = {
    val spark = SparkSession.active
    // lookup compaction also reads the files it leaves alone
    val schemaIds = work.flatMap(_.split.files.map(_.schemaId)).distinct
    val writers = DataFileFormats.writers(spark, table)
    val tasks = spark.sparkContext.parallelize(work, math.max(1, math.min(work.size, spark.sparkContext.defaultParallelism)))
    val metrics = CompactionMetrics.register(spark.sparkContext, table.capabilities.looksUp)
    JobDescription.during(spark, SparkCompactTasks.describe(table, work)) {
      if (table.isPrimaryKeyTable) {
        val readers = KeyValueReaderBuilder.build(spark, table, schemaIds, Seq.empty)
        val results = collect(table, work.size, metrics,
          tasks.mapPartitions { ws =>
            val counts = new CacheCounters
            val messages = ws.map(w => Compactor.run(table, readers, writers, w, SparkCompactTasks.localLookupDir, counts))
              .toArray
            metrics.addLookups(counts)
            messages.iterator
          })
        val (hits, misses) = metrics.lookupCache
        synchronized { lookupTotals = (lookupTotals._1 + hits, lookupTotals._2 + misses) }
        results
      } else {
        val readers = DataFileReaders.bySchema(spark, table, schemaIds, SparkTypes.toSparkStruct(table.schema.fields), Seq.empty)
        collect(table, work.size, metrics,
          tasks.mapPartitionsWithIndex((task, ws) => ws.map(w => AppendCompaction.run(table, readers, writers, w, task))))
      }
    }
  }

  /** Every task's messages (one per bucket compacted), counted in `metrics`, saying the progress as
   *  each task finishes. */
  private def collect(table: FileStoreTable, buckets: Int, metrics: CompactionMetrics,
      rdd: RDD[CommitMessage]): Seq[CommitMessage] = {
    var done = 0
    // runs in the tasks: captures nothing but the metrics
    val compacted = rdd.mapPartitions { it =>
      val messages = it.toArray(ClassTag(classOf[CommitMessage]))
      metrics.add(messages)
      Iterator.single(messages)
    }
    TaskResults.collect(compacted) { (_, messages) =>
      done += messages.length
      progress.foreach(say => say(s"lamina: compact ${table.name}: $done/$buckets buckets done"))
    }
  }

  override def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean =
    SparkAppendRewrite.partitionsWhere(table, where)

  override def sort(table: FileStoreTable, splits: Seq[DataSplit], key: SortKey): Seq[CommitMessage] =
    JobDescription.during(SparkSession.active,
      s"lamina: compact ${table.name}${SparkCompactTasks.partitionsOf(table, splits)}, sorted, " +
        SparkCompactTasks.count(splits.map(_.files.size).sum, "file")) {
      SparkAppendRewrite.sort(table, splits, key, progress)
    }
}

/** Compaction tasks that say no progress: `CALL sys.compact` and compaction after a write. */
object SparkCompactTasks extends SparkCompactTasks(None) {

  /** Compaction tasks that print a progress line to the driver's stderr per finished batch of buckets. */
  def printingProgress: SparkCompactTasks = new SparkCompactTasks(Some(line => System.err.println(line)))

  /** `lamina: compact db.t partition p=1, 12 buckets` (`3 partitions` where several; nothing when the
   *  table has no partition columns). */
  def describe(table: FileStoreTable, work: Seq[BucketCompaction]): String =
    s"lamina: compact ${table.name}${partitionsOf(table, work.map(_.split))}, ${count(work.size, "bucket")}"

  private def partitionsOf(table: FileStoreTable, splits: Seq[DataSplit]): String =
    if (table.schema.partitionKeys.isEmpty) ""
    else splits.map(s => java.nio.ByteBuffer.wrap(s.partition)).distinct match {
      case Seq(one) =>
        " partition " + table.paths.partitionPath(table.manifestStore.decodePartition(one.array())).replace('/', ',')
      case several => s" ${count(several.size, "partition")}"
    }

  private def count(n: Int, what: String): String = s"$n $what${if (n == 1) "" else "s"}"

  /** `lamina-lookup` beside the directory of files added to the Spark application, inside one of the
   *  executor's Spark local directories (removed with the application). In the object: the tasks'
   *  closures must not capture the (unserializable) compaction tasks. */
  def localLookupDir: File = new File(new File(SparkFiles.getRootDirectory()).getParentFile, "lamina-lookup")
}
