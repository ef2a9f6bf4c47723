package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.StructType

import lamina.dv.DeletionVectorFilter
import lamina.format.{FileSchemaReader, NullPaddedRow}
import lamina.mergetree.{KeyValueReaders, LongKeys, RowKind}
import lamina.table.scan.KeySet

/** Reads primary-key splits: merge-on-read of the split's sorted runs, then the requested columns. */
class MergeReaderFactory(kv: KeyValueReaders, required: StructType, direct: Map[Long, FileSchemaReader],
    auditLog: Boolean = false, outputSchema: StructType = null, chosen: Option[LongKeys] = None)
  extends PartitionReaderFactory with ReadsChosenKeys {

  override def forKeys(keys: RuntimeKeys.Sets): PartitionReaderFactory =
    if (auditLog) this
    else
      ReadsChosenKeys.narrowed(kv, keys).fold[PartitionReaderFactory](this) {
        case (narrowed, chosenKeys) =>
          new MergeReaderFactory(narrowed, required, direct, auditLog, outputSchema, Some(chosenKeys))
      }

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    val table = kv.table
    val skip0 = table.capabilities.skipsLevel0
    val files = if (skip0) split.files.filter(_.level > 0) else split.files
    val needsMerge = auditLog || !KeyValueReaders.readableDirectly(table, split)
    // the required columns of a merged record, as a view: Spark converts scanned rows to its own format once
    val columns = required.fields.map(f => table.schema.indexOf(f.name))
    val view = new NullPaddedRow(required, columns)
    val counters = new ScanCounters
    // a merge reads every file of the split
    if (needsMerge) files.foreach(counters.opened)
    if (!needsMerge) {
      // one sorted run of unique keys without deletes: read the value columns directly
      IteratorReader(new AppendReaderFactory(direct, table.name, DeletionVectorFilter(table.fileIO)).rowsOf(
          split.copy(files = files), counters), counters)
    } else if (!auditLog) {
      counters.chosenKeys = chosen
      val merged = kv.mergedRecords(split, skip0, dropDeletes = true)
      new PartitionReader[InternalRow] {
        private var cur: InternalRow = _
        override def next(): Boolean = merged.hasNext && {
          cur = merged.next().value match {
            // a record read from a file: one view straight over the file's row
            case v: NullPaddedRow => v.select(required, columns)
            case other => view.project(other)
          }
          true
        }
        override def get(): InternalRow = cur
        override def close(): Unit = ()
        override def currentMetricsValues(): Array[CustomTaskMetric] = counters.values
      }
    } else {
      val audit = new AuditRow(outputSchema)
      IteratorReader[InternalRow](kv.mergedRecords(split, skip0, dropDeletes = false, finalKinds = true).map { r =>
          audit.of(r.valueKind, view.project(r.value))
        }, counters)
    }
  }
}

/** `$audit_log` of an append table: every row is an insert. */
class AuditLogAppendReaderFactory(inner: PartitionReaderFactory, outputSchema: StructType) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val r = inner.createReader(partition)
    val audit = new AuditRow(outputSchema)
    new PartitionReader[InternalRow] {
      override def next(): Boolean = r.next()
      override def get(): InternalRow = audit.of(RowKind.Insert, r.get())
      override def close(): Unit = r.close()
      override def currentMetricsValues(): Array[CustomTaskMetric] = r.currentMetricsValues()
    }
  }
}
