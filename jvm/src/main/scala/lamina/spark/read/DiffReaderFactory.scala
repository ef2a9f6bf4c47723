package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType

import lamina.format.NullPaddedRow
import lamina.mergetree.{KeyValue, KeyValueReaders, RowKind}
import lamina.table.scan.{DataSplit, DiffSplit}
import lamina.types.SparkTypes

/** One bucket's difference between two snapshots ([[lamina.table.scan.DiffScan]]). */
final case class DiffInputPartition(diff: DiffSplit) extends InputPartition

/** Reads the difference of a primary-key table's bucket: the merged rows at the start and at the end,
 *  joined by key (both in key order): a key only at the end is +I, only at the start -D, at both with
 *  other values -U (the old row) and +U (the new one); an unchanged row is no change. With `auditLog`
 *  each row carries its kind; without, as Paimon's batch reads, only +I and +U rows are returned. */
class DiffReaderFactory(kv: KeyValueReaders, required: StructType, auditLog: Boolean, outputSchema: StructType)
  extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val diff = partition.asInstanceOf[DiffInputPartition].diff
    val table = kv.table
    val skip0 = table.capabilities.skipsLevel0
    def merged(s: DataSplit): BufferedIterator[KeyValue] =
      (if (s.files.isEmpty) Iterator.empty
       else kv.mergedRecords(s, skip0, dropDeletes = true).map(_.copy())).buffered
    val before = merged(diff.before)
    val after = merged(diff.after)
    val order = kv.keyOrder.ordering
    val types = table.schema.fields.map(f => SparkTypes.toSpark(f.dataType))
    def same(x: InternalRow, y: InternalRow): Boolean = types.indices.forall { i =>
      x.isNullAt(i) == y.isNullAt(i) && (x.isNullAt(i) || x.get(i, types(i)) == y.get(i, types(i)))
    }
    val changes: Iterator[(Byte, InternalRow)] = new Iterator[Seq[(Byte, InternalRow)]] {
      override def hasNext: Boolean = before.hasNext || after.hasNext
      override def next(): Seq[(Byte, InternalRow)] = {
        val c = if (!before.hasNext) 1 else if (!after.hasNext) -1 else order.compare(before.head.key, after.head.key)
        if (c < 0) Seq(RowKind.Delete -> before.next().value)
        else if (c > 0) Seq(RowKind.Insert -> after.next().value)
        else {
          val (b, a) = (before.next().value, after.next().value)
          if (same(b, a)) Seq.empty else Seq(RowKind.UpdateBefore -> b, RowKind.UpdateAfter -> a)
        }
      }
    }.flatten
    val view = new NullPaddedRow(required, required.fields.map(f => table.schema.indexOf(f.name)))
    if (auditLog) {
      val audit = new AuditRow(outputSchema)
      IteratorReader[InternalRow](changes.map { case (k, v) => audit.of(k, view.project(v)) })
    } else IteratorReader[InternalRow](changes.filterNot(c => RowKind.isRetract(c._1)).map(c => view.project(c._2)))
  }
}

/** Reads the difference of an append table's bucket: the rows of the files only the start holds
 *  are -D (shown by `$audit_log` only), those of the files only the end holds +I. */
class DiffAppendReaderFactory(files: PartitionReaderFactory, auditLog: Boolean, outputSchema: StructType)
  extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val diff = partition.asInstanceOf[DiffInputPartition].diff
    def rows(s: DataSplit): Iterator[InternalRow] = {
      if (s.files.isEmpty) return Iterator.empty
      val r = files.createReader(LaminaInputPartition(s))
      Iterator.continually(r.next()).takeWhile { more => if (!more) r.close(); more }.map(_ => r.get())
    }
    if (!auditLog) IteratorReader(rows(diff.after))
    else {
      val audit = new AuditRow(outputSchema)
      IteratorReader(rows(diff.before).map(audit.of(RowKind.Delete, _)) ++ rows(diff.after).map(audit.of(RowKind.Insert, _)))
    }
  }
}
