package lamina.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsWrite, Table, TableCapability}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.types.{ByteType, DataType, StructField, StructType}

/** A primary-key table as the target of a write whose rows each carry their kind: the table's columns,
 *  then [[KindedWriteTable.KindColumn]], the byte of the row's kind (+I 0, -D 3), which the writers read
 *  as the record's kind ([[MergeShapes.RowKindColumnOption]]) and do not store. Only the plans
 *  [[MergeIntoAsWrite]] builds write it; it is never in a catalog. */
final class KindedWriteTable(val inner: LaminaTable) extends Table with SupportsWrite {
  override def name(): String = inner.name()

  override def schema(): StructType =
    inner.schema().add(StructField(KindedWriteTable.KindColumn, KindedWriteTable.KindType, nullable = false))

  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_WRITE).asJava

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = inner.newWriteBuilder(info)
}

object KindedWriteTable {
  val KindColumn = "__lamina_row_kind"
  val KindType: DataType = ByteType
}
