package lamina.spark.read

/** What a scan returns: the table's rows; only the top level of a primary-key table without
 *  merging (`$ro`); the merged records with their row kind, deletes included (`$audit_log`); or
 *  every row of the append-table files a copy-on-write DELETE, UPDATE or MERGE rewrites (filters
 *  pick files, never rows, and the snapshot is the latest when the scan is built). */
sealed trait ScanMode extends Serializable
object ScanMode {
  case object Normal extends ScanMode
  case object ReadOptimized extends ScanMode
  case object AuditLog extends ScanMode
  case object CopyOnWrite extends ScanMode
  val RowKindColumn = "rowkind"
}
