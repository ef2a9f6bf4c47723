package lamina.spark.read

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}

import lamina.mergetree.LongKeys
import lamina.spark.SumMetric
import lamina.table.manifest.DataFileMeta

/** The custom metrics a Lamina scan shows in Spark's UI (the scan node of the SQL tab), summed over
 *  tasks: what its readers count as they open files ([[ScanCounters]]), and what planning left out
 *  (a driver metric). */
object ScanMetrics {
  final val FilesRead = "laminaFilesRead"
  final val BytesRead = "laminaBytesRead"
  final val RowsDeletedByVectors = "laminaRowsDeletedByVectors"
  final val FilesSkippedByStatistics = "laminaFilesSkippedByStatistics"
  final val FilesSkippedByIndex = "laminaFilesSkippedByIndex"
  final val FilesSkippedByKeys = "laminaFilesSkippedByKeys"
  final val RowsSkippedByKeys = "laminaRowsSkippedByKeys"
  final val KeysLookedUp = "laminaKeysLookedUp"

  class FilesReadMetric extends SumMetric(FilesRead, "lamina data files read")
  class BytesReadMetric extends SumMetric(BytesRead, "lamina data file bytes read")
  class RowsDeletedByVectorsMetric extends SumMetric(RowsDeletedByVectors, "lamina rows removed by deletion vectors")
  class FilesSkippedByStatisticsMetric extends SumMetric(FilesSkippedByStatistics, "lamina data files skipped by statistics")
  class FilesSkippedByIndexMetric extends SumMetric(FilesSkippedByIndex, "lamina data files skipped by file index")
  class FilesSkippedByKeysMetric extends SumMetric(FilesSkippedByKeys, "lamina data files skipped by join keys")
  class RowsSkippedByKeysMetric extends SumMetric(RowsSkippedByKeys, "lamina rows skipped by join keys")
  class KeysLookedUpMetric extends SumMetric(KeysLookedUp, "lamina join keys looked up in lookup files")

  def supported: Array[CustomMetric] =
    Array(new FilesReadMetric, new BytesReadMetric, new RowsDeletedByVectorsMetric, new FilesSkippedByStatisticsMetric,
      new FilesSkippedByIndexMetric, new FilesSkippedByKeysMetric, new RowsSkippedByKeysMetric, new KeysLookedUpMetric)
}

/** What one partition reader read so far: the data files it opened, their bytes (the files' sizes as
 *  the manifest records them), and the rows deletion vectors removed from the rows it read. Lives in
 *  one task: not thread-safe. */
final class ScanCounters {
  private var files = 0L
  private var bytes = 0L
  private var deleted = 0L

  def opened(f: DataFileMeta): Unit = { files += 1; bytes += f.fileSize }

  def deletedRows(n: Long): Unit = deleted += n

  /** Counts one row a deletion vector removed (for [[lamina.dv.DeletionVectorFilter]]). */
  val deletedRow: () => Unit = () => deleted += 1

  /** The keys a merge was narrowed to, which count the records they left out. */
  var chosenKeys: Option[LongKeys] = None

  def values: Array[CustomTaskMetric] = Array(SumMetric.value(ScanMetrics.FilesRead, files),
    SumMetric.value(ScanMetrics.BytesRead, bytes), SumMetric.value(ScanMetrics.RowsDeletedByVectors, deleted)) ++
    chosenKeys.toSeq.flatMap(k =>
      Seq(SumMetric.value(ScanMetrics.RowsSkippedByKeys, k.leftOut), SumMetric.value(ScanMetrics.KeysLookedUp, k.lookedUp)))
}
