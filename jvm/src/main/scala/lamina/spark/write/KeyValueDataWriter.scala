package lamina.spark.write

import scala.collection.immutable.ArraySeq

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.write.{DeltaWriter, WriterCommitMessage}
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.BadInputException
import lamina.format.DataFileWriters
import lamina.mergetree.RowKind
import lamina.mergetree.function.{DmlOperation, MergeFunctions, RowKindFilter}
import lamina.spark.MirrorColumns
import lamina.spark.compact.SparkCompactTasks
import lamina.table.FileStoreTable
import lamina.table.bucket.{CrossPartitionAssigner, CrossPartitionPlan, DynamicBucketPlan}
import lamina.table.scan.SequenceBases
import lamina.table.sink.{KeyValueTableWrite, PrimaryKeyWrites, WriteBuckets}
import lamina.types.SparkTypes

/** Spark's data writer of one task into a primary-key table: translates Spark's rows and row-level
 *  operations into records of a row kind for the engine's [[KeyValueTableWrite]]. Serves INSERT (all
 *  +I) and the row-level DML of Spark's delta API (insert / update / delete). `sequenceBases`: see
 *  [[KeyValueTableWrite]]. `uniqueKeys`: a key written twice fails the task (see
 *  [[lamina.spark.MergeShapes.UniqueKeysOption]]). `rowKind`: every row written is a record of
 *  that kind, its non-key values unchecked ([[lamina.spark.MergeShapes.RowKindOption]]). `kindColumn`:
 *  the ordinal, past the table's columns, of the byte giving each row's kind
 *  ([[lamina.spark.MergeShapes.RowKindColumnOption]]). `metadataColumns`: the names of the metadata
 *  columns row-level DML hands to deletes and updates, in order ([[lamina.spark.MirrorColumns]]).
 *  `dynamic`: how a dynamic-bucket table's keys get their buckets; `crossPartition`: how a cross-partition
 *  upsert table's keys get their partitions and buckets. `buckets`: the bucket counts of
 *  partitions. */
class KeyValueDataWriter(table: FileStoreTable, writers: DataFileWriters,
    sequenceBases: Map[SequenceBases.Key, Long], taskId: Int, uniqueKeys: Boolean = false,
    rowKind: Option[Byte] = None, kindColumn: Option[Int] = None, metadataColumns: Seq[String] = Seq.empty,
    dynamic: Option[DynamicBucketPlan] = None, buckets: WriteBuckets = WriteBuckets(),
    crossPartition: Option[CrossPartitionPlan] = None)
  extends DeltaWriter[InternalRow] {

  private val schema = table.schema
  private val sink = new KeyValueTableWrite(table, writers, sequenceBases, taskId, uniqueKeys, dynamic, buckets,
    crossPartition.map(new CrossPartitionAssigner(table, _, SparkCompactTasks.localLookupDir)))
  private val pkOrdinals: Array[Int] = schema.primaryKeys.map(schema.indexOf).toArray

  /** (data ordinal, row id ordinal) of each row id column. */
  private val idPairs = PrimaryKeyWrites.rowIdColumns(table).map(schema.indexOf).zipWithIndex
  private val sparkTypes = schema.fields.map(f => SparkTypes.toSpark(f.dataType)).toArray

  // The statement's clauses are refused during analysis when the session extensions are installed
  // (DmlAnalysisCheck); without them, a writer refuses the first delete or update it is handed
  private lazy val nonKey = PrimaryKeyWrites.updatableColumns(table)
  private lazy val deleteRefusal = PrimaryKeyWrites.dmlRefusal(table, DmlOperation.MergeDelete)
  private lazy val updateRefusal = PrimaryKeyWrites.dmlRefusal(table, DmlOperation.MergeUpdate, nonKey)

  /** A row of an INSERT or DataFrame write: of the kind the whole write gives its rows (`rowKind`, its
   *  non-key values unchecked), of the kind its `kindColumn` holds (a deleted row's non-key values
   *  unchecked), of the kind its `rowkind.field` column names (a retract kind the merge engine could not
   *  merge is refused; one the table's [[RowKindFilter]] drops, with `ignore-delete` or
   *  `ignore-update-before`, is dropped), or an insert. */
  override def write(row: InternalRow): Unit = {
    val kind =
      if (forcedKind >= 0) forcedKind
      else if (kindOrdinal >= 0) row.getByte(kindOrdinal)
      else if (rowKindOrdinal < 0) RowKind.Insert
      else rowKindOf(row)
    if (RowKind.isAdd(kind)) { record(row, kind, checkNulls = forcedKind < 0); tally.upserted += 1 }
    else if (forcedKind >= 0 || kindOrdinal >= 0) {
      deleteRefusal.foreach(why => throw new BadInputException(why))
      record(row, kind, checkNulls = false)
    } else if (kindFilter.keeps(kind)) {
      retractRefusal(kind).foreach { why =>
        throw new BadInputException(s"Table ${table.name}: a row of kind ${RowKind.shortString(kind)} (column " +
          s"'${schema.fields(rowKindOrdinal).name}', option 'rowkind.field') cannot be written: $why")
      }
      record(row, kind)
    }
  }

  /** An insert of row-level DML (MERGE ... INSERT): row-level DML writes its own kinds. */
  override def insert(row: InternalRow): Unit = { record(row, RowKind.Insert); tally.inserted += 1 }

  private val tally = new RowTally

  private val forcedKind: Byte = rowKind.getOrElse(-1: Byte)
  private val kindOrdinal: Int = kindColumn.getOrElse(-1)
  private val rowKindOrdinal: Int =
    MergeFunctions.rowKindField(schema.fields, schema.primaryKeys, table.options, table.name).getOrElse(-1)
  private lazy val kindFilter = RowKindFilter.of(table.options, table.name)
  private lazy val retractRefusal: Byte => Option[String] = {
    val mf = MergeFunctions.create(schema.fields, schema.primaryKeys, table.options, table.name)()
    kind => mf.retractRefusal(kind)
  }

  /** The kind the `rowkind.field` column of `row` names, compared as bytes (no string per row). */
  private def rowKindOf(row: InternalRow): Byte = {
    val v = if (row.isNullAt(rowKindOrdinal)) null else row.getUTF8String(rowKindOrdinal)
    val names = KeyValueDataWriter.RowKindNames
    var i = if (v == null) names.length else 0
    while (i < names.length && !names(i).equals(v)) i += 1
    if (i == names.length) i = -1
    if (i < 0) throw new BadInputException(s"Table ${table.name}: column '${schema.fields(rowKindOrdinal).name}' " +
      s"(option 'rowkind.field') of a written row holds ${if (v == null) "NULL" else s"'$v'"}; expected +I, -U, +U or -D")
    i.toByte
  }

  /** An update keeps its primary key: a changed key would leave the old row behind under the old
   *  key, so it is refused (the whole statement fails, nothing is committed). */
  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit = {
    updateRefusal.foreach(why => throw new BadInputException(why))
    pkOrdinals.zipWithIndex.foreach { case (o, i) =>
      val before = id.get(i, sparkTypes(o))
      val after = if (row.isNullAt(o)) null else row.get(o, sparkTypes(o))
      if (before != after)
        throw new BadInputException(
          s"UPDATE cannot change the primary key column '${schema.fields(o).name}' of table ${table.name}: " +
            "delete the row and insert it under its new key instead")
    }
    if (partialUpdate) {
      var k = 0 // a loop over an int array: this runs per updated row
      while (k < nonKeyOrdinals.length) {
        val o = nonKeyOrdinals(k)
        // a NULL overwrites nothing: honoured only where the row held NULL already
        if (row.isNullAt(o) && (beforeOrdinals(o) < 0 || !metadata.isNullAt(beforeOrdinals(o))))
          throw PrimaryKeyWrites.nullOnPartialUpdate(table, "UPDATE", schema.fields(o).name)
        k += 1
      }
    }
    record(row, RowKind.UpdateAfter)
    tally.updated += 1
  }

  private lazy val partialUpdate = PrimaryKeyWrites.isPartialUpdate(table)
  private lazy val nonKeyOrdinals: Array[Int] =
    schema.fields.indices.filterNot(i => schema.primaryKeys.contains(schema.fields(i).name)).toArray

  /** A delete carries the whole deleted row, as Paimon's deletes do: the row id (the primary key,
   *  and the sequence fields where they are part of it) and the other columns handed over as
   *  metadata columns. */
  override def delete(metadata: InternalRow, id: InternalRow): Unit = {
    deleteRefusal.foreach(why => throw new BadInputException(why))
    val row = new GenericInternalRow(schema.fields.size)
    copyFields(row, id, idPairs)
    copyFields(row, metadata, deletedOrdinals)
    record(row, RowKind.Delete, checkNulls = false)
    tally.deleted += 1
  }

  private def copyFields(to: InternalRow, from: InternalRow, pairs: Seq[(Int, Int)]): Unit = pairs.foreach {
    case (o, i) => to.update(o, if (from.isNullAt(i)) null else from.get(i, sparkTypes(o)))
  }

  /** (data ordinal, metadata ordinal) of each metadata column that mirrors a data column under `prefix`. */
  private def mirrored(prefix: String): Seq[(Int, Int)] = metadataColumns.zipWithIndex.collect {
    case (c, m) if c.startsWith(prefix) => (schema.indexOf(c.stripPrefix(prefix)), m)
  }

  private val deletedOrdinals = mirrored(MirrorColumns.DeletedPrefix)

  /** By data ordinal: the metadata ordinal of the column's value before an update, or -1. */
  private val beforeOrdinals: Array[Int] = {
    val a = Array.fill(schema.fields.size)(-1)
    mirrored(MirrorColumns.BeforePrefix).foreach { case (o, m) => a(o) = m }
    a
  }

  private def record(row: InternalRow, kind: Byte, checkNulls: Boolean = true): Unit = sink.write(row, kind, checkNulls)

  override def commit(): WriterCommitMessage = LaminaWriterCommitMessage(sink.prepareCommit(), rows = tally.result)

  override def abort(): Unit = sink.abort()

  override def close(): Unit = if (!sink.isEmpty) abort()
}

object KeyValueDataWriter {

  /** Paimon's short names of the row kinds, at the index of the kind's byte. */
  private val RowKindNames: Array[UTF8String] =
    Array.tabulate(4)(k => UTF8String.fromString(RowKind.shortString(k.toByte)))
}
