package lamina.spark.write

import lamina.errors.BadInputException
import lamina.mergetree.{DmlRules, MergeTreeOptions}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage

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
   *  ([[lamina.spark.MirrorColumns]]) because they are not part of [[rowIdColumns]]: all of
   *  them when one may be NULL. */
  def deleteMetadataFields(table: FileStoreTable): Seq[String] =
    if (nullableSequenceFields(table).isEmpty) Seq.empty else sequenceFields(table)

  /** The nullable non-key columns of a partial-update table, whose old values an update receives as
   *  metadata columns ([[lamina.spark.MirrorColumns]]): a NULL there overwrites nothing, so an update
   *  leaving one NULL is refused only where the row held a value. */
  def updateMetadataFields(table: FileStoreTable): Seq[String] =
    if (!isPartialUpdate(table)) Seq.empty
    else table.schema.fields.filter(f => f.dataType.nullable && !table.schema.primaryKeys.contains(f.name)).map(_.name)

  private def sequenceFields(table: FileStoreTable): Seq[String] =
    MergeTreeOptions.SequenceField.get(table.options).getOrElse(Seq.empty)

  private def nullableSequenceFields(table: FileStoreTable): Seq[String] =
    sequenceFields(table).filter(f => table.schema.field(f).forall(_.dataType.nullable))

  /** Why row-level `op` (an operation of [[DmlRules.check]], which `updatedColumns` are for) cannot
   *  run on the table, or None: its merge engine's rules.
   *  The one decision behind every refusal: during analysis, when a write is planned, in a writer. */
  def dmlRefusal(table: FileStoreTable, op: String, updatedColumns: Seq[String] = Seq.empty): Option[String] = {
    val s = table.schema
    DmlRules.check(op, updatedColumns, s.fields, s.primaryKeys, s.partitionKeys, table.options, table.name)
  }

  /** Whether NULLs never overwrite values in the table (merge-engine partial-update). */
  def isPartialUpdate(table: FileStoreTable): Boolean =
    MergeTreeOptions.MergeEngine.getOrDefault(table.options).equalsIgnoreCase("partial-update")

  /** The refusal of `what` (UPDATE, MERGE INTO ... UPDATE) setting `column` of a partial-update table to NULL. */
  def nullOnPartialUpdate(table: FileStoreTable, what: String, column: String): BadInputException =
    new BadInputException(
      s"$what of table ${table.name} (merge-engine partial-update) cannot set column '$column' to NULL: " +
        "in a partial-update table a NULL never overwrites a value")

  /** Compaction after a write, in its own COMPACT snapshot. Tables whose readers skip level 0
   *  (first-row) get the buckets this commit touched fully compacted at once, so that no committed
   *  row stays invisible: a compaction that loses a race with a concurrent commit is planned again from
   *  the new snapshot until it lands (or finds nothing left to do), and should it still fail, the write
   *  fails, saying that its rows are committed and what makes them visible. Other tables get universal
   *  compaction of the touched buckets when their sorted runs call for it, unless `write-only` is set,
   *  as best effort: their rows are visible either way. */
  def afterCommit(table: FileStoreTable, msgs: Seq[CommitMessage], commitUser: String, snapshotId: Long): Unit = {
    val touched = msgs.map(m => (java.nio.ByteBuffer.wrap(m.partition), m.bucket)).distinct.toSet
    if (touched.isEmpty) return
    val latest = table.withSchema(table.schemaManager.latest().getOrElse(table.schema))
    val full = lamina.spark.read.KeyValueReaders.skipsLevel0(latest)
    if (!full && lamina.mergetree.MergeTreeOptions.WriteOnly.getOrDefault(latest.options)) return
    val attempts = if (full) FullCompactionAttempts else 3
    var attempt = 0
    var done = false
    while (!done) {
      attempt += 1
      try {
        lamina.spark.compact.Compactor.compactBuckets(latest, Some(touched), full, commitUser)
        done = true
      } catch {
        case e: lamina.errors.CommitConflictException if attempt < attempts =>
          log.warn(s"Compaction after a write to ${table.name} lost a race (attempt $attempt): ${e.getMessage}")
        case e: Exception if full =>
          throw new lamina.errors.CommitConflictException(
            s"The write to table ${table.name} is committed (snapshot $snapshotId), but the compaction that makes " +
              s"its rows visible failed after $attempt attempt(s); readers of a first-row table see its rows once " +
              s"CALL <catalog>.sys.compact(table => '${table.name}') succeeds", e)
        case e: Exception =>
          log.warn(s"Compaction after a write to ${table.name} failed; the write is committed", e)
          done = true
      }
    }
  }

  /** Attempts at the compaction that makes a first-row write visible: each loss to a concurrent commit
   *  means that commit landed, so writers racing on a bucket all get through well within this. */
  private val FullCompactionAttempts = 50

  private val log = org.slf4j.LoggerFactory.getLogger(getClass)
}
