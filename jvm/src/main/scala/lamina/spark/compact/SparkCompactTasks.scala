package lamina.spark.compact

import java.io.File

import org.apache.spark.SparkFiles
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow

import lamina.table.compact.{AppendCompaction, BucketCompaction, CompactTasks, Compactor}
import lamina.spark.DataFileFormats
import lamina.spark.read.{DataFileReaders, KeyValueReaderBuilder}
import lamina.table.FileStoreTable
import lamina.table.compact.AppendCompactTasks
import lamina.table.commit.CommitMessage
import lamina.table.scan.DataSplit
import lamina.table.sort.SortKey
import lamina.types.SparkTypes

/** Compaction tasks as Spark tasks of the active session: readers and writers prepared once on the
 *  driver, one task per bucket compaction (append tables: [[SparkAppendRewrite]]). Local lookup files (tables with deletion vectors) go into
 *  the executor's Spark local directory, where the executor's next compaction tasks find them. */
object SparkCompactTasks extends CompactTasks with AppendCompactTasks {
  override def run(table: FileStoreTable, work: Seq[BucketCompaction]): Seq[CommitMessage] = {
    val spark = SparkSession.active
    // lookup compaction also reads the files it leaves alone
    val schemaIds = work.flatMap(_.split.files.map(_.schemaId)).distinct
    val writers = DataFileFormats.writers(spark, table)
    val tasks = spark.sparkContext.parallelize(work, math.max(1, math.min(work.size, spark.sparkContext.defaultParallelism)))
    if (table.isPrimaryKeyTable) {
      val readers = KeyValueReaderBuilder.build(spark, table, schemaIds, Seq.empty)
      tasks.map(w => Compactor.run(table, readers, writers, w, localLookupDir)).collect().toSeq
    } else {
      val readers = DataFileReaders.bySchema(spark, table, schemaIds, SparkTypes.toSparkStruct(table.schema.fields), Seq.empty)
      tasks.mapPartitionsWithIndex((task, ws) => ws.map(w => AppendCompaction.run(table, readers, writers, w, task)))
        .collect().toSeq
    }
  }

  override def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean =
    SparkAppendRewrite.partitionsWhere(table, where)

  override def sort(table: FileStoreTable, splits: Seq[DataSplit], key: SortKey): Seq[CommitMessage] =
    SparkAppendRewrite.sort(table, splits, key)

  /** `lamina-lookup` beside the directory of files added to the Spark application, inside one of the
   *  executor's Spark local directories (removed with the application). */
  private def localLookupDir: File = new File(new File(SparkFiles.getRootDirectory()).getParentFile, "lamina-lookup")
}
