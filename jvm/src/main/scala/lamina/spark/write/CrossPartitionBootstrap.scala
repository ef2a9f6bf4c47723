package lamina.spark.write

import scala.collection.immutable.ArraySeq
import scala.collection.mutable

import org.apache.hadoop.fs.Path
import org.apache.spark.HashPartitioner
import org.apache.spark.sql.SparkSession

import lamina.mergetree.KeyValueReaders
import lamina.table.FileStoreTable
import lamina.table.bucket.{KeyIndexShareFile, KeyIndexShares}
import lamina.table.options.CoreOptions
import lamina.table.scan.DataSplit

/** The bootstrap scan of a cross-partition upsert write, one Spark job before its tasks start: the live
 *  keys of `splits` are read (whole buckets per task, at most one task per bucket and at least
 *  `cross-partition-upsert.bootstrap-parallelism` or Spark's default parallelism), shuffled by assigner
 *  group, and written as one share per group under `dir` ([[KeyIndexShares]]), so that each write task
 *  reads its own group's keys only. */
object CrossPartitionBootstrap {

  def run(spark: SparkSession, table: FileStoreTable, splits: Seq[DataSplit], readers: KeyValueReaders, groups: Int,
      dir: Path): KeyIndexShares = {
    val partitions = splits.map(s => ArraySeq.unsafeWrapArray(s.partition)).distinct
    val ids = partitions.zipWithIndex.toMap
    val work = splits.map(s => (s, ids(ArraySeq.unsafeWrapArray(s.partition))))
    val sc = spark.sparkContext
    val tasks = math.min(work.size,
      math.max(CoreOptions.CrossPartitionUpsertBootstrapParallelism.getOrDefault(table.options), sc.defaultParallelism))
    val dirName = dir.toString
    val counted = sc.parallelize(work, math.max(1, tasks))
      .mapPartitions(_.flatMap { case (split, id) => KeyIndexShares.tagged(table, readers, split, id, groups) })
      .partitionBy(new HashPartitioner(groups)) // an int key k in [0, groups) goes to partition k
      .mapPartitionsWithIndex((group, chunks) =>
        Iterator(KeyIndexShareFile.write(table.fileIO, KeyIndexShares.fileOf(dirName, group), chunks.map(_._2)).toSeq))
      .collect()
    val live = mutable.HashMap.empty[(Int, Int), Long]
    work.foreach { case (split, id) => live.update((id, split.bucket), 0L) }
    counted.foreach(_.foreach { case (bucket, n) => live.update(bucket, live(bucket) + n) })
    KeyIndexShares(dirName, partitions.map(_.toArray).toIndexedSeq, live.toMap)
  }
}
