package lamina.spark

import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.write.{DeltaWrite, DeltaWriteBuilder, LogicalWriteInfo, SupportsDelta}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

import lamina.spark.write.{LaminaWrite, WriteMode}

/** DELETE, UPDATE and MERGE on append tables with `deletion-vectors.enabled`, through Spark's
 *  delta-based row-level API: a row's id is its data file and position there ([[RowPositionColumns]]);
 *  a deleted row is marked in its file's deletion vector, an updated one too, its new version written
 *  as a new row (Spark hands the writer an update, so that it counts updates apart from deletes and
 *  inserts), and no file is rewritten
 *  ([[lamina.table.commit.FileStoreCommit.markDeleted]]). */
class LaminaDeletionVectorOperation(table: LaminaTable, cmd: Command)
  extends AppendRowLevelOperation(table, cmd) with SupportsDelta {

  override def newWriteBuilder(info: LogicalWriteInfo): DeltaWriteBuilder = new DeltaWriteBuilder {
    override def build(): DeltaWrite =
      new LaminaWrite(table.table, info, WriteMode.MarkDeleted(() => read()), command = Some(cmd))
  }

  override def rowId(): Array[NamedReference] = RowPositionColumns.Names.map(c => ColumnReferences.column(c)).toArray

  override def representUpdateAsDeleteAndInsert(): Boolean = false
}
