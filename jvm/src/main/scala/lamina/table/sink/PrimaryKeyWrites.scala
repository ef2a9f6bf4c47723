package lamina.table.sink

import lamina.errors.BadInputException
import lamina.mergetree.function.{DmlOperation, DmlRules}
import lamina.table.FileStoreTable
import lamina.table.options.CoreOptions

/** Driver-side steps of writes to primary-key tables. */
object PrimaryKeyWrites {

  /** The row id Spark's row-level DML hands to deletes and updates: the primary key, then the
   *  `sequence.field` columns when all of them are NOT NULL (Spark takes only non-null row-id
   *  columns). A delete record then carries the deleted row's sequence values, ties it and, written
   *  later, orders after it, as the full-row deletes of Paimon's own writers do. */
  def rowIdColumns(table: FileStoreTable): Seq[String] = {
    val s = table.schema
    val sequence = sequenceFields(table)
    if (sequence.nonEmpty && nullableSequenceFields(table).isEmpty) (s.primaryKeys ++ sequence).distinct
    else s.primaryKeys
  }

  /** The `sequence.field` columns that a delete receives as metadata columns
   *  (mirrored by the Spark adapter) because they are not part of [[rowIdColumns]]: all of
   *  them when one may be NULL. */
  def deleteMetadataFields(table: FileStoreTable): Seq[String] =
    if (nullableSequenceFields(table).isEmpty) Seq.empty else sequenceFields(table)

  /** The nullable non-key columns of a partial-update table, whose old values an update receives as
   *  metadata columns (mirrored by the Spark adapter): a NULL there overwrites nothing, so an update
   *  leaving one NULL is refused only where the row held a value. */
  def updateMetadataFields(table: FileStoreTable): Seq[String] =
    if (!isPartialUpdate(table)) Seq.empty
    else table.schema.fields.filter(f => f.dataType.nullable && !table.schema.primaryKeys.contains(f.name)).map(_.name)

  private def sequenceFields(table: FileStoreTable): Seq[String] =
    CoreOptions.SequenceField.get(table.options).getOrElse(Seq.empty)

  private def nullableSequenceFields(table: FileStoreTable): Seq[String] =
    sequenceFields(table).filter(f => table.schema.field(f).forall(_.dataType.nullable))

  /** Why row-level `op` (an operation of [[DmlRules.check]], which `updatedColumns` are for) cannot
   *  run on the table, or None: its merge engine's rules.
   *  The one decision behind every refusal: during analysis, when a write is planned, in a writer. */
  def dmlRefusal(table: FileStoreTable, op: DmlOperation, updatedColumns: Seq[String] = Seq.empty): Option[String] = {
    val s = table.schema
    DmlRules.check(op, updatedColumns, s.fields, s.primaryKeys, s.partitionKeys, table.options, table.name)
  }

  /** Whether NULLs never overwrite values in the table (merge-engine partial-update). */
  def isPartialUpdate(table: FileStoreTable): Boolean =
    table.capabilities.mergeEngine.nullsOverwriteNothing

  /** The refusal of `what` (UPDATE, MERGE INTO ... UPDATE) setting `column` of a partial-update table to NULL. */
  def nullOnPartialUpdate(table: FileStoreTable, what: String, column: String): BadInputException =
    new BadInputException(
      s"$what of table ${table.name} (merge-engine partial-update) cannot set column '$column' to NULL: " +
        "in a partial-update table a NULL never overwrites a value")
}
