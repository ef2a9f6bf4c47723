package lamina.api

import lamina.errors.BadInputException
import lamina.mergetree.compact.{CompactRequest, CompactTasks}
import lamina.table.Warehouse

/** The compaction entry point of `CALL sys.compact`, the `lamina.jobs.Compact` spark-submit job and
 *  the Python API: plain values in (a `db.t` name, partitions as text, a strategy name), the COMPACT
 *  snapshot id out (None when nothing needed compacting). `tasks` is where the merges run. */
object Compaction {

  /** Compacts `table`; `partitions` is `k=v[,k2=v2][;k=v...]` (blank: all); `strategy` is 'full'
   *  (or blank) or 'minor' (universal compaction picks the runs). */
  def compact(warehouse: Warehouse, table: String, partitions: String, strategy: String, tasks: CompactTasks): Option[Long] =
    compact(warehouse, table, CompactRequest.parsePartitions(partitions), isFull(strategy), tasks)

  def compact(warehouse: Warehouse, table: String, partitions: Seq[Map[String, String]], full: Boolean,
      tasks: CompactTasks): Option[Long] =
    CompactRequest(table, partitions, full).run(warehouse, tasks)

  /** Whether a strategy name asks for full compaction. */
  def isFull(strategy: String): Boolean = strategy.trim.toLowerCase match {
    case "minor" => false
    case "" | "full" => true
    case other => throw new BadInputException(s"Unknown compact_strategy '$other': use 'full' or 'minor'")
  }

  /** `k=v,k2=v2;k=v3` into one map per partition; blank means all partitions. */
  def parsePartitions(text: String): Seq[Map[String, String]] = CompactRequest.parsePartitions(text)
}
