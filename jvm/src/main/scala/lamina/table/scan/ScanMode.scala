package lamina.table.scan

/** What a scan returns: the table's rows; only the top level of a primary-key table without
 *  merging (`$ro`); the merged records with their row kind, deletes included (`$audit_log`); or
 *  every row of the append-table files a DELETE, UPDATE or MERGE reads (`RowLevel`: filters pick
 *  files, never rows, as copy-on-write rewrites every row of a file and deletion vectors count each
 *  row's position; the snapshot is the latest when the scan is built). */
sealed trait ScanMode extends Serializable
object ScanMode {
  case object Normal extends ScanMode
  case object ReadOptimized extends ScanMode
  case object AuditLog extends ScanMode
  case object RowLevel extends ScanMode
  val RowKindColumn = "rowkind"
}
