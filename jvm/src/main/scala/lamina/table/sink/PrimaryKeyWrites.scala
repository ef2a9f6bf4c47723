package lamina.table.sink

import lamina.errors.BadInputException
import lamina.mergetree.function.{DmlOperation, DmlRules}
import lamina.table.FileStoreTable
import lamina.table.options.{ChangelogProducer, CoreOptions}

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

  /** The columns of a primary-key table that a row-level delete receives as metadata columns
   *  (mirrored by the Spark adapter): every column not part of [[rowIdColumns]]. A delete record
   *  carries the whole deleted row, as Paimon's own DELETE writes it: the changelog of
   *  `changelog-producer` `input` and `$audit_log` show what was deleted, and the row's sequence
   *  values order the record after it. No merge function reads a delete's other values (a -D removes
   *  the row: deletes need `remove-record-on-delete` on partial-update and aggregation tables, which
   *  partial-update refuses beside sequence groups, see [[DmlRules]]). */
  def deletedRowFields(table: FileStoreTable): Seq[String] =
    if (!table.isPrimaryKeyTable) Seq.empty
    else {
      val id = rowIdColumns(table)
      table.schema.fieldNames.filterNot(id.contains)
    }

  /** Whether a delete may be written from its key alone, without reading the deleted row (MERGE's
   *  deletes by key planned as a write of the source): not with `sequence.field`, whose values order
   *  the record after the row, and not with `changelog-producer` `input`, whose changelog is the
   *  records written, so that its -D must hold the row. The lookup and full-compaction producers
   *  derive a delete's changelog from the row merged before it; without a producer, the records of a
   *  MERGE by key stay as cheap as its source (the row-level DELETE still carries the row). */
  def keyOnlyDeletes(table: FileStoreTable): Boolean =
    sequenceFields(table).isEmpty && table.capabilities.changelogProducer != ChangelogProducer.Input

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

  /** The columns an UPDATE may assign: neither primary-key nor partition columns (a cross-partition
   *  upsert table's key leaves partition columns out; updating one there would move the row). */
  def updatableColumns(table: FileStoreTable): Seq[String] = {
    val s = table.schema
    s.fieldNames.filterNot(c => s.primaryKeys.contains(c) || s.partitionKeys.contains(c))
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
