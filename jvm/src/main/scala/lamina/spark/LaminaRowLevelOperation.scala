package lamina.spark

import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.errors.BadInputException
import lamina.mergetree.function.DmlOperation
import lamina.spark.write.{LaminaWrite, WriteMode}
import lamina.table.sink.PrimaryKeyWrites

/** DELETE, UPDATE and MERGE on primary-key tables through Spark's delta-based row-level API: the
 *  primary key (and NOT NULL sequence fields, see [[PrimaryKeyWrites.rowIdColumns]]) is the row id; Spark hands over the changed rows, and Lamina writes -D and +U/+I
 *  records into the LSM tree instead of rewriting files. */
class LaminaRowLevelOperationBuilder(table: LaminaTable, info: RowLevelOperationInfo) extends RowLevelOperationBuilder {
  override def build(): RowLevelOperation = {
    val t = table.table
    // which columns an UPDATE assigns is not known here: assume all non-key columns (conservative;
    // DmlAnalysisCheck, when installed, has already checked the assigned ones and key updates).
    // DELETE is checked when its write starts (see LaminaDeltaOperation.newWriteBuilder).
    if (info.command() == Command.UPDATE) {
      val nonKey = PrimaryKeyWrites.updatableColumns(t)
      PrimaryKeyWrites.dmlRefusal(t, DmlOperation.Update, nonKey).foreach(why => throw new BadInputException(why))
    }
    new LaminaDeltaOperation(table, info.command())
  }
}

class LaminaDeltaOperation(table: LaminaTable, cmd: Command) extends RowLevelOperation with SupportsDelta {
  override def command(): Command = cmd

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = table.newScanBuilder(options)

  /** A row-level DELETE the merge engine cannot honour is refused when its write starts (before any
   *  task runs), not when the operation is built during analysis: a DELETE of whole partitions is
   *  turned into a metadata delete by the optimizer, never writes records, and every merge engine
   *  honours it. */
  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = {
    val refusal = if (cmd != Command.DELETE) None else PrimaryKeyWrites.dmlRefusal(table.table, DmlOperation.Delete)
    new DeltaWriteBuilder {
      override def build(): DeltaWrite = new LaminaWrite(table.table, info, WriteMode.Append, refusal, Some(cmd))
    }
  }

  override def rowId(): Array[NamedReference] =
    PrimaryKeyWrites.rowIdColumns(table.table).map(k => ColumnReferences.column(k)).toArray

  /** Deletes (of DELETE and MERGE) carry the deleted row's columns outside the row id, and updates
   *  (of UPDATE and MERGE) of a partial-update table the old values of its nullable non-key columns,
   *  as metadata columns ([[MirrorColumns]]). An UPDATE reads no deleted row's columns. */
  override def requiredMetadataAttributes(): Array[NamedReference] = {
    val t = table.table
    val deleted = if (cmd == Command.UPDATE) Seq.empty else PrimaryKeyWrites.deletedRowFields(t).map(MirrorColumns.deleted)
    val before = if (cmd == Command.DELETE) Seq.empty else PrimaryKeyWrites.updateMetadataFields(t).map(MirrorColumns.before)
    (deleted ++ before).map(c => ColumnReferences.column(c)).toArray
  }

  override def representUpdateAsDeleteAndInsert(): Boolean = false
}
