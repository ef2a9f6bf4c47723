package lamina.spark

import org.apache.spark.sql.connector.write.{LogicalWriteInfo, Write, WriteBuilder}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command

import lamina.spark.write.{LaminaWrite, WriteMode}

/** DELETE, UPDATE and MERGE on append tables without deletion vectors, through Spark's group-based
 *  row-level API (Spark plans ReplaceData; no `SupportsDelta`): Spark writes the rows to keep of the
 *  files read and the new rows through the append write path, and the commit replaces exactly the
 *  files the scan planned with the written ones ([[lamina.table.commit.FileStoreCommit.replace]]).
 *  Files the filters rule out are not rewritten. */
class LaminaCopyOnWriteOperation(table: LaminaTable, cmd: Command) extends AppendRowLevelOperation(table, cmd) {
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new WriteBuilder {
    override def build(): Write =
      new LaminaWrite(table.table, info, WriteMode.CopyOnWrite(() => read(), onlyRemovesRows = cmd == Command.DELETE),
        command = Some(cmd))
  }
}
