package lamina.table.sink

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.{DataFileDir, DataFileRoll, DataFileWriters, StatsMode, ValueStats}
import lamina.table.FileStoreTable
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.table.options.{CoreOptions, FileIndexOptions}

/** Writes the rows of one (partition, bucket) into data files of about `targetFileSize` bytes
 *  ([[TargetSizeCheck]]: the size the format's writer reports), recording row
 *  count and value statistics per file. Invariant: every closed file has a [[DataFileMeta]]. */
final class RollingFileWriter(
    table: FileStoreTable,
    writers: DataFileWriters,
    val partition: Array[Byte],
    dir: DataFileDir,
    val bucket: Int,
    targetFileSize: Long,
    taskId: Int,
    fileSource: Int = DataFileMeta.FileSourceAppend) {

  private val valueStatsOf =
    new ValueStats(StatsMode.parse(CoreOptions.StatsMode.getOrDefault(table.options)), table.schema.fields, writers)
  private val roll = new DataFileRoll(table.fileIO, dir, writers, taskId, "data", valueStatsOf, targetFileSize,
    table.schema.fields.size, FileIndexOptions.spec(table.options, table.schema.fields, table.name))
  private val done = ArrayBuffer.empty[DataFileMeta]
  private var rows = 0L

  def write(row: InternalRow): Unit = {
    if (!roll.isOpen) { roll.open(); rows = 0 }
    rows += 1
    if (roll.write(row, row)) closeFile()
  }

  def finish(): Seq[DataFileMeta] = {
    closeFile()
    done.toSeq
  }

  def abort(): Unit = {
    roll.abort()
    done.clear()
  }

  private def closeFile(): Unit = {
    if (!roll.isOpen) return
    val f = roll.close()
    done += DataFileMeta(
      fileName = f.fileName,
      fileSize = f.fileSize,
      rowCount = rows,
      minKey = SimpleStats.Empty.minValues,
      maxKey = SimpleStats.Empty.maxValues,
      keyStats = SimpleStats.Empty,
      valueStats = f.valueStats,
      minSequenceNumber = 0L,
      maxSequenceNumber = math.max(0L, rows - 1),
      schemaId = table.schema.id,
      level = 0,
      creationTimeMillis = Some(System.currentTimeMillis()),
      deleteRowCount = Some(0L),
      fileSource = Some(fileSource),
      valueStatsCols = f.valueStatsCols,
      embeddedIndex = f.embeddedIndex,
      extraFiles = f.extraFiles,
      externalPath = f.externalPath)
  }
}
