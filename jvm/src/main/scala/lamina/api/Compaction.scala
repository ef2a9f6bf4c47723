package lamina.api

import lamina.errors.BadInputException
import lamina.table.compact.{CompactRequest, CompactTasks}
import lamina.table.catalog.Metastore
import lamina.table.compact.AppendCompactTasks
import lamina.table.sort.OrderStrategy

/** The compaction entry point of `CALL sys.compact`, the `lamina.jobs.Compact` spark-submit job and
 *  the Python API: plain values in (a `db.t` name, partitions as text, a strategy name, an order), the
 *  COMPACT snapshot id out (None when nothing needed compacting). `tasks` is where the work runs. */
object Compaction {

  /** Where compaction runs: the merges of primary-key buckets and the rewrites of append files. */
  type Tasks = CompactTasks with AppendCompactTasks

  /** Compacts `table`; `partitions` is `k=v[,k2=v2][;k=v...]` (blank: all) or `where` a SQL condition
   *  on partition columns (blank: none); `strategy` is 'full' (or blank) or 'minor' (universal
   *  compaction picks the runs; append tables pack fewer small files); `orderStrategy` ('none', 'order',
   *  'zorder', 'hilbert'; blank: none) sorts an append table by the comma-separated `orderBy` columns. */
  def compact(warehouse: Metastore, table: String, partitions: String, strategy: String, orderStrategy: String,
      orderBy: String, where: String, tasks: Tasks): Option[Long] =
    compact(warehouse, table, CompactRequest.parsePartitions(partitions), isFull(strategy), orderStrategy, orderBy,
      where, tasks)

  def compact(warehouse: Metastore, table: String, partitions: Seq[Map[String, String]], full: Boolean,
      orderStrategy: String, orderBy: String, where: String, tasks: Tasks): Option[Long] =
    CompactRequest(table, partitions, full, OrderStrategy.parse(orderStrategy), orderBy,
      Option(where).map(_.trim).filter(_.nonEmpty)).run(warehouse, tasks, tasks)

  /** Whether a strategy name asks for full compaction. */
  def isFull(strategy: String): Boolean = strategy.trim.toLowerCase match {
    case "minor" => false
    case "" | "full" => true
    case other => throw new BadInputException(s"Unknown compact_strategy '$other': use 'full' or 'minor'")
  }

  /** `k=v,k2=v2;k=v3` into one map per partition; blank means all partitions. */
  def parsePartitions(text: String): Seq[Map[String, String]] = CompactRequest.parsePartitions(text)
}
