package lamina.spark.read

/** What a scan returns: the table's rows; only the top level of a primary-key table without
 *  merging (`$ro`); or the merged records with their row kind, deletes included (`$audit_log`). */
sealed trait ScanMode extends Serializable
object ScanMode {
  case object Normal extends ScanMode
  case object ReadOptimized extends ScanMode
  case object AuditLog extends ScanMode
  val RowKindColumn = "rowkind"
}
