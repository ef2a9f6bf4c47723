package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType

import lamina.format.NullPaddedRow
import lamina.mergetree.{KeyValueReaders, RowKind}

/** Reads change splits of a primary-key table ([[lamina.table.scan.ChangeScan]]): every record of
 *  each file as written, in file order, without merging. With `auditLog` each row carries its kind
 *  in the `rowkind` column of `outputSchema`; without it, as Paimon's batch reads of changes, the
 *  retractions (-U, -D) are dropped and the rows are the inserted and updated values. */
class ChangesReaderFactory(kv: KeyValueReaders, required: StructType, auditLog: Boolean, outputSchema: StructType)
  extends PartitionReaderFactory {

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    val columns = required.fields.map(f => kv.table.schema.indexOf(f.name))
    val view = new NullPaddedRow(required, columns)
    val records = split.files.iterator.flatMap(f => kv.readFile(split.bucketPath, f, split.deletionFiles))
    if (auditLog) {
      val audit = new AuditRow(outputSchema)
      IteratorReader[InternalRow](records.map(r => audit.of(r.valueKind, view.project(r.value))))
    } else IteratorReader[InternalRow](records.filterNot(r => RowKind.isRetract(r.valueKind)).map(r => view.project(r.value)))
  }
}
