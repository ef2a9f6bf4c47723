package lamina.spark.compact

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

import lamina.lookup.cache.CacheCounters
import lamina.table.commit.CommitMessage

/** What a compaction's Spark tasks did, as named accumulators that Spark's UI shows on the stage and its
 *  tasks (Stages tab, "Accumulators"): the files the tasks compacted away and wrote, and their bytes; with
 *  lookup compaction, the pages its lookups found in the lookup cache (hits) and read from local lookup
 *  files (misses). Registered on the driver once per compaction job; added to in the tasks. */
final class CompactionMetrics private (filesCompacted: LongAccumulator, bytesCompacted: LongAccumulator,
    filesWritten: LongAccumulator, bytesWritten: LongAccumulator, lookups: Option[(LongAccumulator, LongAccumulator)])
  extends Serializable {

  /** Counts what the compactions that returned `messages` did. */
  def add(messages: Iterable[CommitMessage]): Unit = messages.foreach { m =>
    filesCompacted.add(m.compactBefore.size.toLong)
    bytesCompacted.add(m.compactBefore.map(_.fileSize).sum)
    filesWritten.add(m.compactAfter.size.toLong)
    bytesWritten.add(m.compactAfter.map(_.fileSize).sum)
  }

  /** Counts what a task's lookups found of the pages they needed. */
  def addLookups(counts: CacheCounters): Unit = lookups.foreach { case (hits, misses) =>
    hits.add(counts.hits)
    misses.add(counts.misses)
  }

  /** The lookup cache's hits and misses of the tasks that finished (on the driver, once the job ended). */
  def lookupCache: (Long, Long) = lookups.fold((0L, 0L)) { case (hits, misses) => (hits.value, misses.value) }
}

object CompactionMetrics {
  final val FilesCompacted = "lamina files compacted"
  final val BytesCompacted = "lamina bytes compacted"
  final val FilesWritten = "lamina compacted files written"
  final val BytesWritten = "lamina compacted bytes written"
  final val LookupCacheHits = "lamina lookup cache hits"
  final val LookupCacheMisses = "lamina lookup cache misses"

  /** The metrics of one compaction job; the lookup cache's when its tasks look keys up. */
  def register(sc: SparkContext, looksUp: Boolean): CompactionMetrics = new CompactionMetrics(
    sc.longAccumulator(FilesCompacted), sc.longAccumulator(BytesCompacted), sc.longAccumulator(FilesWritten),
    sc.longAccumulator(BytesWritten),
    if (looksUp) Some((sc.longAccumulator(LookupCacheHits), sc.longAccumulator(LookupCacheMisses))) else None)
}
