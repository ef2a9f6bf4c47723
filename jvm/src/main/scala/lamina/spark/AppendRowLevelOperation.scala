package lamina.spark

import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.RowLevelOperation
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.spark.read.LaminaScanBuilder
import lamina.table.scan.DataSplit

/** A DELETE, UPDATE or MERGE of an append table: its one scan reads the latest snapshot as of when it
 *  is built, every row of the files that may hold affected rows (the condition's filters pick files by
 *  partition and statistics, never rows), and its commit changes exactly the files that scan
 *  planned ([[read]]): rewrites them ([[LaminaCopyOnWriteOperation]]) or marks their rows in deletion
 *  vectors ([[LaminaDeletionVectorOperation]]). */
abstract class AppendRowLevelOperation(table: LaminaTable, cmd: Command) extends RowLevelOperation {
  override def command(): Command = cmd

  @volatile private var scanBuilder: Option[LaminaScanBuilder] = None

  /** One builder per operation: its scan is the one Spark plans for the operation's read. */
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = synchronized {
    if (scanBuilder.isEmpty) scanBuilder = Some(table.newRowLevelScanBuilder(options))
    scanBuilder.get
  }

  /** The splits the scan handed Spark; none if Spark never planned it (then no file is changed). */
  protected def read(): Seq[DataSplit] =
    scanBuilder.flatMap(_.builtScan).map(_.plannedSplits).getOrElse(Seq.empty)
}
