package lamina.table.scan

import lamina.mergetree.{KeyValueReaders, MergeTreeTable}
import lamina.table.manifest.DataFileMeta

/** How a scan reads its splits: one reader kind per scan, each served by one reader factory of the
 *  Spark adapter. */
sealed trait ReaderKind

object ReaderKind {

  /** An append table's rows with their file and position (row-level operations' `_file`, `_pos`). */
  case object PositionedRows extends ReaderKind

  /** Files read alone as columnar batches, each through its deletion vector by row position. */
  case object DeletionVectorBatches extends ReaderKind

  /** Files read alone as columnar batches: no merge, no deletion vector, one schema. */
  case object FileBatches extends ReaderKind

  /** Files read alone, row by row, through their deletion vectors (append tables, `$ro`). */
  case object FileRows extends ReaderKind

  /** An append table's `$audit_log`: its files' rows, each an insert. */
  case object AppendAuditLog extends ReaderKind

  /** An incremental diff of an append table: the files only one side holds. */
  case object AppendDiff extends ReaderKind

  /** An incremental diff of a primary-key table: each bucket's merged rows on both sides, compared. */
  case object MergedDiff extends ReaderKind

  /** Changes as written (incremental reads): a primary-key table's records, unmerged. */
  case object Changes extends ReaderKind

  /** A primary-key bucket's merge handing Spark columnar batches. */
  case object MergedBatches extends ReaderKind

  /** A primary-key bucket's merge, row by row; a split readable without merging is read directly. */
  case object MergedRows extends ReaderKind
}

/** What a read asks: its mode, whether rows carry their file and position, whether its splits hold
 *  changes (an incremental read, a streaming batch of changes) or the two sides of a diff, and whether
 *  it serves a streaming micro-batch (whose partitions mix whole reads and changes: rows only). */
final case class ReadRequest(
    mode: ScanMode,
    positioned: Boolean = false,
    changes: Boolean = false,
    diff: Boolean = false,
    microBatch: Boolean = false)

/** What the file format's readers can do for the columns a read returns, as the adapter finds out:
 *  hand columnar batches, say each row's position in its file (row groups skipped by filters
 *  included), and, asked only when it matters (it builds readers), whether a bucket's merge can hand
 *  batches. */
final case class FormatAbilities(batches: Boolean, rowPositions: Boolean, mergedBatches: () => Boolean)

/** The planning step of a read: which [[ReaderKind]] reads a scan's splits, and how the splits become
 *  input partitions. Pure (no Spark, no files): decided from the table's capabilities, the request,
 *  the splits' files and what the format can do.
 *
 *  Rules, first that applies:
 *  1. rows with positions: [[ReaderKind.PositionedRows]];
 *  2. a table with deletion vectors whose every split reads without merging, one schema (level 0
 *     aside where readers skip it), in a format that says row positions, as batches:
 *     [[ReaderKind.DeletionVectorBatches]];
 *  3. every split readable without merging, no deletion vector, one schema, no level-0 file a reader
 *     skips, as batches: [[ReaderKind.FileBatches]];
 *  4. a diff: [[ReaderKind.AppendDiff]] or [[ReaderKind.MergedDiff]];
 *  5. an append table's `$audit_log`: [[ReaderKind.AppendAuditLog]];
 *  6. an append table or `$ro`: [[ReaderKind.FileRows]];
 *  7. changes: [[ReaderKind.Changes]];
 *  8. a whole read (not a micro-batch) without deletion vectors (batches carry no row positions) whose
 *     merge can hand batches: [[ReaderKind.MergedBatches]];
 *  9. else [[ReaderKind.MergedRows]]. */
final class ReadPlan(table: MergeTreeTable, request: ReadRequest) {
  private val caps = table.capabilities
  private def pk = caps.primaryKey
  private def mode = request.mode

  /** Readers skip a primary-key table's level 0 ([[lamina.table.options.TableCapabilities.skipsLevel0]]). */
  def skipsLevel0: Boolean = pk && caps.skipsLevel0

  /** A primary-key table with deletion vectors whose readers skip level 0: each key lives in one file,
   *  its files are read alone, without merging. */
  def readsWithoutMerge: Boolean = mode == ScanMode.Normal && caps.deletionVectors && skipsLevel0

  /** A split is read without merging when it belongs to an append table, to `$ro`, or is readable
   *  directly ([[KeyValueReaders.readableDirectly]]). */
  def direct(s: DataSplit): Boolean =
    !pk || mode == ScanMode.ReadOptimized || (mode == ScanMode.Normal && KeyValueReaders.readableDirectly(table, s))

  /** The reader kind of these splits. */
  def kind(splits: Seq[DataSplit], format: FormatAbilities): ReaderKind = {
    val schemaId = table.schema.id
    val wholeRead = !request.positioned && !request.changes && !request.microBatch && splits.nonEmpty
    def allDirect = splits.forall(direct)
    def deletionVectorBatches =
      wholeRead && mode == ScanMode.Normal && caps.deletionVectors && (!pk || readsWithoutMerge) && allDirect &&
        format.rowPositions &&
        splits.forall(_.files.forall(f => f.schemaId == schemaId || (skipsLevel0 && f.level == 0))) && format.batches
    def fileBatches =
      wholeRead && mode != ScanMode.AuditLog && allDirect && splits.forall(_.deletionFiles.isEmpty) &&
        splits.forall(_.files.forall(_.schemaId == schemaId)) &&
        !(skipsLevel0 && splits.exists(_.files.exists(_.level == 0))) && format.batches
    if (request.positioned) ReaderKind.PositionedRows
    else if (deletionVectorBatches) ReaderKind.DeletionVectorBatches
    else if (fileBatches) ReaderKind.FileBatches
    else if (request.diff) if (pk) ReaderKind.MergedDiff else ReaderKind.AppendDiff
    else if (mode == ScanMode.AuditLog && !pk) ReaderKind.AppendAuditLog
    else if (!pk || mode == ScanMode.ReadOptimized) ReaderKind.FileRows
    else if (request.changes) ReaderKind.Changes
    else if (mode == ScanMode.Normal && !request.microBatch && splits.forall(_.deletionFiles.isEmpty) &&
      format.mergedBatches()) ReaderKind.MergedBatches
    else ReaderKind.MergedRows
  }

  /** The splits as input partitions: a bucket that is merged stays whole; files read alone are packed
   *  into partitions of about `targetBytes` (level 0 left out where readers skip it). */
  def partitions(splits: Seq[DataSplit], kind: ReaderKind, targetBytes: Long): Seq[DataSplit] = {
    val merged = pk && mode != ScanMode.ReadOptimized && kind != ReaderKind.DeletionVectorBatches
    splits.flatMap { s =>
      if (merged) Seq(s)
      else {
        val groups = Seq.newBuilder[Seq[DataFileMeta]]
        var cur = Vector.empty[DataFileMeta]
        var size = 0L
        s.files.filter(f => !(kind == ReaderKind.DeletionVectorBatches && skipsLevel0) || f.level > 0).foreach { f =>
          if (cur.nonEmpty && size + f.fileSize > targetBytes) { groups += cur; cur = Vector.empty; size = 0 }
          cur :+= f; size += f.fileSize
        }
        if (cur.nonEmpty) groups += cur
        groups.result().map(g => s.copy(files = g))
      }
    }
  }
}
