package lamina.spark.compact

import java.io.File

import org.apache.spark.SparkFiles
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow

import lamina.mergetree.compact.{BucketCompaction, CompactTasks, Compactor}
import lamina.spark.DataFileFormats
import lamina.spark.read.KeyValueReaderBuilder
import lamina.table.FileStoreTable
import lamina.table.append.AppendCompactTasks
import lamina.table.commit.CommitMessage
import lamina.table.scan.DataSplit
import lamina.table.sort.SortKey

/** Compaction tasks as Spark tasks of the active session: readers and writers prepared once on the
 *  driver, one task per bucket compaction (append tables: [[SparkAppendRewrite]]). Local lookup files (tables with deletion vectors) go into
 *  the executor's Spark local directory, where the executor's next compaction tasks find them. */
object SparkCompactTasks extends CompactTasks with AppendCompactTasks {
  override def run(table: FileStoreTable, work: Seq[BucketCompaction]): Seq[CommitMessage] = {
    val spark = SparkSession.active
    // lookup compaction also reads the files it leaves alone
    val readers = KeyValueReaderBuilder.build(spark, table, work.flatMap(_.split.files.map(_.schemaId)).distinct, Seq.empty)
    val writers = DataFileFormats.writers(spark, table)
    spark.sparkContext.parallelize(work, math.max(1, math.min(work.size, spark.sparkContext.defaultParallelism)))
      .map(w => Compactor.run(table, readers, writers, w, localLookupDir)).collect().toSeq
  }

  override def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean =
    SparkAppendRewrite.partitionsWhere(table, where)

  override def pack(table: FileStoreTable, groups: Seq[DataSplit]): Seq[CommitMessage] =
    SparkAppendRewrite.pack(table, groups)

  override def sort(table: FileStoreTable, splits: Seq[DataSplit], key: SortKey): Seq[CommitMessage] =
    SparkAppendRewrite.sort(table, splits, key)

  /** `lamina-lookup` beside the directory of files added to the Spark application, inside one of the
   *  executor's Spark local directories (removed with the application). */
  private def localLookupDir: File = new File(new File(SparkFiles.getRootDirectory()).getParentFile, "lamina-lookup")
}
