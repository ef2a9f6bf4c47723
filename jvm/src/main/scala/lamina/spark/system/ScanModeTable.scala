package lamina.spark.system

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.types.{StringType, StructField, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.spark.{LaminaTable, OptionScopes}
import lamina.spark.read.LaminaScanBuilder
import lamina.table.scan.ScanMode
import lamina.table.options.TableOperation

/** `$ro` (top level of a primary-key table, unmerged) and `$audit_log` (merged records with a
 *  leading `rowkind` column: +I, -U, +U, -D), read like the table itself. */
class ScanModeTable(base: LaminaTable, mode: ScanMode, display: String) extends Table with SupportsRead {
  override def name(): String = display

  override def schema(): StructType = mode match {
    case ScanMode.AuditLog =>
      StructType(StructField(ScanMode.RowKindColumn, StringType, nullable = false) +: base.schema().fields)
    case _ => base.schema()
  }

  override def capabilities(): util.Set[TableCapability] = mode match {
    case ScanMode.AuditLog => Set(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ).asJava
    case _ => Set(TableCapability.BATCH_READ).asJava
  }

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    // the table's rows, in another shape: a feature that changes them refuses these reads too
    base.readTable.require(TableOperation.Read)
    val dynamic = OptionScopes.dynamic(display, options.asCaseSensitiveMap().asScala.toMap, "read")
    new LaminaScanBuilder(base.readTable.withDynamicOptions(dynamic -- LaminaTable.ScanKeys), base.pinnedSnapshot,
      schema(), mode, streamOptions = dynamic)
  }
}
