package lamina.spark.compact

import org.apache.spark.SparkContext
import org.apache.spark.util.LongAccumulator

import lamina.table.commit.CommitMessage

/** What a compaction's Spark tasks did, as named accumulators that Spark's UI shows on the stage and its
 *  tasks (Stages tab, "Accumulators"): the files the tasks compacted away and wrote, and their bytes.
 *  Registered on the driver once per compaction job; added to in the tasks. */
final class CompactionMetrics private (filesCompacted: LongAccumulator, bytesCompacted: LongAccumulator,
    filesWritten: LongAccumulator, bytesWritten: LongAccumulator)
  extends Serializable {

  /** Counts what the compactions that returned `messages` did. */
  def add(messages: Iterable[CommitMessage]): Unit = messages.foreach { m =>
    filesCompacted.add(m.compactBefore.size.toLong)
    bytesCompacted.add(m.compactBefore.map(_.fileSize).sum)
    filesWritten.add(m.compactAfter.size.toLong)
    bytesWritten.add(m.compactAfter.map(_.fileSize).sum)
  }
}

object CompactionMetrics {
  final val FilesCompacted = "lamina files compacted"
  final val BytesCompacted = "lamina bytes compacted"
  final val FilesWritten = "lamina compacted files written"
  final val BytesWritten = "lamina compacted bytes written"

  def register(sc: SparkContext): CompactionMetrics = new CompactionMetrics(sc.longAccumulator(FilesCompacted),
    sc.longAccumulator(BytesCompacted), sc.longAccumulator(FilesWritten), sc.longAccumulator(BytesWritten))
}
