package lamina.mergetree.function

/** A row-level operation on a primary-key table, as [[DmlRules]] judges it: what it writes (-D records
 *  for a delete, whole +U rows for an update, replaced files for an overwrite) and how messages name it. */
sealed abstract class DmlOperation(val shown: String, val deletes: Boolean, val updates: Boolean)

object DmlOperation {
  case object Delete extends DmlOperation("DELETE", deletes = true, updates = false)
  case object Update extends DmlOperation("UPDATE", deletes = false, updates = true)

  /** A MERGE INTO's WHEN ... THEN DELETE clauses. */
  case object MergeDelete extends DmlOperation("MERGE INTO ... DELETE", deletes = true, updates = false)

  /** A MERGE INTO's WHEN ... THEN UPDATE clauses. */
  case object MergeUpdate extends DmlOperation("MERGE INTO ... UPDATE", deletes = false, updates = true)

  /** Replaces files and merges nothing: every engine allows it. */
  case object InsertOverwrite extends DmlOperation("INSERT OVERWRITE", deletes = false, updates = false)

  val All: Seq[DmlOperation] = Seq(Delete, Update, MergeDelete, MergeUpdate, InsertOverwrite)
}
