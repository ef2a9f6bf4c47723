package lamina.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.spark.read.IteratorReader

/** A read-only metadata table computed on the driver (they are small: one row per snapshot, file,
 *  manifest...). Rows are shipped to one task inside its input partition. */
abstract class SystemTableBase(displayName: String) extends Table with SupportsRead {
  def rows(): Seq[InternalRow]

  /** The rows, where only the columns of `required` are read: a table whose columns differ in cost
   *  may skip the work of the others (their values are dropped). */
  def rows(required: StructType): Seq[InternalRow] = rows()

  override def name(): String = displayName
  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_READ).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val full = schema()
    new ScanBuilder with SupportsPushDownRequiredColumns {
      private var required = full
      override def pruneColumns(s: StructType): Unit = required = s
      override def build(): Scan = new Scan with Batch {
        override def readSchema(): StructType = required
        override def toBatch: Batch = this
        override def planInputPartitions(): Array[InputPartition] = {
          val ordinals = required.fieldNames.map(full.fieldIndex)
          val types = full.fields.map(_.dataType)
          val projected = rows(required).map { r =>
            val out = new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(ordinals.length)
            ordinals.zipWithIndex.foreach { case (o, i) => out.update(i, if (r.isNullAt(o)) null else r.get(o, types(o))) }
            out: InternalRow
          }
          Array(SystemRows(projected))
        }
        override def createReaderFactory(): PartitionReaderFactory = SystemRowsReaderFactory
      }
    }
  }
}

final case class SystemRows(rows: Seq[InternalRow]) extends InputPartition

object SystemRowsReaderFactory extends PartitionReaderFactory {
  override def createReader(p: InputPartition): PartitionReader[InternalRow] = {
    IteratorReader(p.asInstanceOf[SystemRows].rows.iterator)
  }
}
