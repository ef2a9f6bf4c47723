package lamina.spark.write

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}

import lamina.spark.SumMetric
import lamina.table.commit.CommitMessage

/** The custom metrics a Lamina write shows in Spark's UI (the write node of the SQL tab): the data
 *  files its tasks wrote, their bytes and records (deletes included), as the driver commits them
 *  (Spark reads a task's metrics before the task's writer rolls its last file). */
object WriteMetrics {
  final val FilesWritten = "laminaFilesWritten"
  final val BytesWritten = "laminaBytesWritten"
  final val RecordsWritten = "laminaRecordsWritten"

  class FilesWrittenMetric extends SumMetric(FilesWritten, "lamina data files written")
  class BytesWrittenMetric extends SumMetric(BytesWritten, "lamina data file bytes written")
  class RecordsWrittenMetric extends SumMetric(RecordsWritten, "lamina records written")

  def supported: Array[CustomMetric] = Array(new FilesWrittenMetric, new BytesWrittenMetric, new RecordsWrittenMetric)

  /** The metrics of the data files `messages` add. */
  def of(messages: Seq[CommitMessage]): Array[CustomTaskMetric] = {
    val files = messages.flatMap(_.newFiles)
    Array(SumMetric.value(FilesWritten, files.size), SumMetric.value(BytesWritten, files.map(_.fileSize).sum),
      SumMetric.value(RecordsWritten, files.map(_.rowCount).sum))
  }
}
