package lamina.spark.write

import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}

import lamina.spark.SumMetric
import lamina.table.commit.CommitMessage

/** The custom metrics a Lamina write shows in Spark's UI (the write node of the SQL tab): the data
 *  files its tasks wrote, their bytes and records (deletes included), as the driver commits them
 *  (Spark reads a task's metrics before the task's writer rolls its last file); and the lookup cache's
 *  hits and misses of the lookup compaction that followed the commit (deletion vectors, the lookup
 *  changelog producer). */
object WriteMetrics {
  final val FilesWritten = "laminaFilesWritten"
  final val BytesWritten = "laminaBytesWritten"
  final val RecordsWritten = "laminaRecordsWritten"
  final val LookupCacheHits = "laminaLookupCacheHits"
  final val LookupCacheMisses = "laminaLookupCacheMisses"

  class FilesWrittenMetric extends SumMetric(FilesWritten, "lamina data files written")
  class BytesWrittenMetric extends SumMetric(BytesWritten, "lamina data file bytes written")
  class RecordsWrittenMetric extends SumMetric(RecordsWritten, "lamina records written")
  class LookupCacheHitsMetric extends SumMetric(LookupCacheHits, "lamina lookup cache hits")
  class LookupCacheMissesMetric extends SumMetric(LookupCacheMisses, "lamina lookup cache misses")

  /** The metrics of a write; the lookup cache's for a table that looks keys up when it compacts. */
  def supported(looksUp: Boolean): Array[CustomMetric] =
    Array[CustomMetric](new FilesWrittenMetric, new BytesWrittenMetric, new RecordsWrittenMetric) ++
      (if (looksUp) Array[CustomMetric](new LookupCacheHitsMetric, new LookupCacheMissesMetric) else Array.empty[CustomMetric])

  /** The metrics of the data files `messages` add, and the lookup cache's (hits, misses) in the
   *  compaction after the commit (when given: a table that looks keys up). */
  def of(messages: Seq[CommitMessage], lookupCache: Option[(Long, Long)]): Array[CustomTaskMetric] = {
    val files = messages.flatMap(_.newFiles)
    Array(SumMetric.value(FilesWritten, files.size), SumMetric.value(BytesWritten, files.map(_.fileSize).sum),
      SumMetric.value(RecordsWritten, files.map(_.rowCount).sum)) ++ lookupCache.toSeq.flatMap { case (hits, misses) =>
      Seq(SumMetric.value(LookupCacheHits, hits), SumMetric.value(LookupCacheMisses, misses))
    }
  }
}
