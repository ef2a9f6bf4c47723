package lamina.table.scan

import lamina.errors.BadInputException
import lamina.table.FileStoreTable
import lamina.table.options.{CoreOptions, IncrementalScanMode}

/** The snapshots an incremental read spans: the changes of `startExclusive` + 1 to `endInclusive`,
 *  read as `read` says. Invariant: startExclusive <= endInclusive. */
final case class IncrementalRange(startExclusive: Long, endInclusive: Long, read: IncrementalRange.Read)

object IncrementalRange {

  /** How an incremental read reads its range. */
  sealed trait Read extends Product with Serializable

  /** The changes each snapshot of the range committed, from `source` ([[ChangeScan]]). */
  final case class Changes(source: ChangeSource) extends Read

  /** The difference between the table at the start and at the end ([[DiffScan]]). */
  case object Diff extends Read

  /** The range the read options of `table` ask for (`incremental-between` or
   *  `incremental-between-timestamp`), or None for a read of one snapshot. */
  def of(table: FileStoreTable): Option[IncrementalRange] = {
    val o = table.options
    val byIds = CoreOptions.IncrementalBetween.get(o)
    val byTime = CoreOptions.IncrementalBetweenTimestamp.get(o)
    if (byIds.isEmpty && byTime.isEmpty) return None
    if (byIds.isDefined && byTime.isDefined)
      throw new BadInputException(s"Read of table ${table.name}: set only one of '${CoreOptions.IncrementalBetween.key}' " +
        s"and '${CoreOptions.IncrementalBetweenTimestamp.key}'")
    val mode = CoreOptions.IncrementalBetweenScanMode.getOrDefault(o)
    val (start, end) = byIds match {
      case Some(v) =>
        val (a, b) = pair(table, CoreOptions.IncrementalBetween.key, v)
        (snapshotOf(table, a), snapshotOf(table, b))
      case None =>
        val (a, b) = pair(table, CoreOptions.IncrementalBetweenTimestamp.key, byTime.get)
        def at(t: String): Long = {
          val millis = t.toLongOption.getOrElse(throw new BadInputException(
              s"Read of table ${table.name}: '${CoreOptions.IncrementalBetweenTimestamp.key}' needs epoch milliseconds, got '$t'"))
          // before the first snapshot: the range starts before the table's history
          table.snapshotManager.earlierOrEqualTime(millis).map(_.id)
            .getOrElse(table.snapshotManager.earliestId().map(_ - 1).getOrElse(0L))
        }
        (at(a), at(b))
    }
    if (start > end)
      throw new BadInputException(s"Read of table ${table.name}: the start of an incremental read ($start) lies after " +
        s"its end ($end)")
    val read = if (mode == IncrementalScanMode.Diff) Diff else Changes(ChangeSource.of(table, mode))
    Some(IncrementalRange(start, end, read))
  }

  private def pair(table: FileStoreTable, key: String, value: String): (String, String) =
    value.split(",", -1).map(_.trim) match {
      case Array(a, b) if a.nonEmpty && b.nonEmpty => (a, b)
      case _ =>
        throw new BadInputException(s"Read of table ${table.name}: '$key' = '$value' must be 'start,end'")
    }

  /** A snapshot id, or the snapshot of the tag of that name. */
  private def snapshotOf(table: FileStoreTable, v: String): Long =
    v.toLongOption.getOrElse(table.snapshotManager.tags.getOrThrow(v).snapshot.id)
}
