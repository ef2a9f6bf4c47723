package lamina.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Batch, InputPartition, PartitionReader, PartitionReaderFactory, Scan, ScanBuilder}
import org.apache.spark.sql.connector.read.streaming.{MicroBatchStream, Offset, ReadLimit, SupportsTriggerAvailableNow}
import org.apache.spark.sql.types.{ArrayType, StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap
import org.apache.spark.unsafe.types.UTF8String

import lamina.mergetree.RowKind
import lamina.table.scan.ScanMode

/** `$binlog` (Paimon's): the records of `$audit_log` with each column as an array, an update's -U and
 *  +U records packed into one row of kind +U whose arrays hold the value before and after; any other
 *  record is a row of its own kind with one-element arrays. Read in batch (the table, or incrementally)
 *  and as a stream, as `$audit_log` is; filters and column pruning apply after the packing. */
class BinlogTable(auditLog: ScanModeTable, display: String) extends Table with SupportsRead {
  override def name(): String = display

  override def schema(): StructType = BinlogTable.schemaOf(auditLog.schema())

  override def capabilities(): util.Set[TableCapability] = auditLog.capabilities()

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val inner = auditLog.newScanBuilder(options)
    val s = schema()
    () => new BinlogScan(inner.build(), s)
  }
}

object BinlogTable {

  /** `rowkind`, then each column of the audit log as an array of its type. */
  def schemaOf(audit: StructType): StructType = StructType(audit.fields.map { f =>
    if (f.name == ScanMode.RowKindColumn) f
    else StructField(f.name, ArrayType(f.dataType, containsNull = true), nullable = true, f.metadata)
  })
}

private class BinlogScan(inner: Scan, schema: StructType) extends Scan {
  override def readSchema(): StructType = schema

  override def description(): String = s"binlog of ${inner.description()}"

  override def toBatch: Batch = {
    val batch = inner.toBatch
    new Batch {
      override def planInputPartitions(): Array[InputPartition] = batch.planInputPartitions()
      override def createReaderFactory(): PartitionReaderFactory = new BinlogReaderFactory(batch.createReaderFactory(),
        inner.readSchema())
    }
  }

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream = {
    val stream = inner.toMicroBatchStream(checkpointLocation).asInstanceOf[MicroBatchStream with SupportsTriggerAvailableNow]
    new MicroBatchStream with SupportsTriggerAvailableNow {
      override def latestOffset(): Offset = stream.latestOffset()
      override def latestOffset(start: Offset, limit: ReadLimit): Offset = stream.latestOffset(start, limit)
      override def getDefaultReadLimit: ReadLimit = stream.getDefaultReadLimit
      override def prepareForTriggerAvailableNow(): Unit = stream.prepareForTriggerAvailableNow()
      override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] =
        stream.planInputPartitions(start, end)
      override def createReaderFactory(): PartitionReaderFactory =
        new BinlogReaderFactory(stream.createReaderFactory(), inner.readSchema())
      override def initialOffset(): Offset = stream.initialOffset()
      override def deserializeOffset(json: String): Offset = stream.deserializeOffset(json)
      override def commit(end: Offset): Unit = stream.commit(end)
      override def stop(): Unit = stream.stop()
      override def toString: String = s"binlog of $stream"
    }
  }
}

/** Packs the audit-log rows of one partition (`auditSchema`: `rowkind` and the table's columns). */
private class BinlogReaderFactory(inner: PartitionReaderFactory, auditSchema: StructType) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val reader = inner.createReader(partition)
    val kindAt = auditSchema.fieldNames.indexOf(ScanMode.RowKindColumn)
    val types = auditSchema.fields.map(_.dataType)
    val updateBefore = UTF8String.fromString(RowKind.shortString(RowKind.UpdateBefore))
    val updateAfter = UTF8String.fromString(RowKind.shortString(RowKind.UpdateAfter))
    new PartitionReader[InternalRow] {
      private var pending: InternalRow = _ // a row read ahead, not yet packed
      private var current: InternalRow = _

      private def nextAudit(): Option[InternalRow] =
        if (pending != null) { val p = pending; pending = null; Some(p) }
        else if (reader.next()) Some(reader.get().copy())
        else None

      private def packed(rows: InternalRow*): InternalRow = {
        val out = new GenericInternalRow(types.length)
        types.indices.foreach { i =>
          if (i == kindAt) out.update(i, rows.last.getUTF8String(kindAt))
          else out.update(i, new GenericArrayData(rows.map(r => if (r.isNullAt(i)) null else r.get(i, types(i))).toArray))
        }
        out
      }

      override def next(): Boolean = nextAudit() match {
        case None => false
        case Some(row) =>
          current =
            if (row.getUTF8String(kindAt) != updateBefore) packed(row)
            else nextAudit() match {
              case Some(after) if after.getUTF8String(kindAt) == updateAfter => packed(row, after)
              case other => pending = other.orNull; packed(row)
            }
          true
      }

      override def get(): InternalRow = current

      override def close(): Unit = reader.close()
    }
  }
}
