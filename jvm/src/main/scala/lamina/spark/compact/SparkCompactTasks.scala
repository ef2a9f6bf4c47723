package lamina.spark.compact

import org.apache.spark.sql.SparkSession

import lamina.mergetree.compact.{BucketCompaction, CompactTasks, Compactor}
import lamina.spark.DataFileFormats
import lamina.spark.read.KeyValueReaderBuilder
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage

/** Compaction tasks as Spark tasks of the active session: readers and writers prepared once on the
 *  driver, one task per bucket compaction. */
object SparkCompactTasks extends CompactTasks {
  override def run(table: FileStoreTable, work: Seq[BucketCompaction]): Seq[CommitMessage] = {
    val spark = SparkSession.active
    val readers = KeyValueReaderBuilder.build(spark, table, work.flatMap(_.inputs.map(_.schemaId)), Seq.empty)
    val writers = DataFileFormats.writers(spark, table)
    spark.sparkContext.parallelize(work, math.max(1, math.min(work.size, spark.sparkContext.defaultParallelism)))
      .map(w => Compactor.run(table, readers, writers, w)).collect().toSeq
  }
}
