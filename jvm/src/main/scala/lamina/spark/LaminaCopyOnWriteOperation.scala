package lamina.spark

import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, RowLevelOperation, Write, WriteBuilder}
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.spark.read.LaminaScanBuilder
import lamina.spark.write.{LaminaWrite, WriteMode}
import lamina.table.scan.DataSplit

/** DELETE, UPDATE and MERGE on append tables through Spark's group-based row-level API (Spark plans
 *  ReplaceData; no `SupportsDelta`): the operation's scan reads every row of the files that may hold
 *  affected rows (the condition's filters pick files by partition and statistics, never rows), Spark
 *  writes the rows to keep and the new rows through the append write path, and the commit replaces
 *  exactly the files the scan planned with the written ones
 *  ([[lamina.table.commit.FileStoreCommit.replace]]). Files the filters rule out are not rewritten. */
class LaminaCopyOnWriteOperation(table: LaminaTable, cmd: Command) extends RowLevelOperation {
  override def command(): Command = cmd

  @volatile private var scanBuilder: Option[LaminaScanBuilder] = None

  /** One builder per operation: its scan is the one Spark plans for the ReplaceData's read. */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = synchronized {
    if (scanBuilder.isEmpty) scanBuilder = Some(table.newCopyOnWriteScanBuilder(options))
    scanBuilder.get
  }

  /** The splits the scan handed Spark; none if Spark never planned it (then nothing is removed). */
  private def read(): Seq[DataSplit] = scanBuilder.flatMap(_.builtScan).map(_.plannedSplits).getOrElse(Seq.empty)

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = new WriteBuilder {
    override def build(): Write =
      new LaminaWrite(table.table, info, WriteMode.CopyOnWrite(() => read(), onlyRemovesRows = cmd == Command.DELETE),
        command = Some(cmd))
  }
}
