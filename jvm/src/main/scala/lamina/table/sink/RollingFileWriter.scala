package lamina.table.sink

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.{DataFileWriter, DataFileWriters, StatsCollector, StatsMode, TargetSizeCheck, ValueStats}
import lamina.io.PathNames
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.table.options.CoreOptions

/** Writes the rows of one (partition, bucket) into data files of about `targetFileSize` bytes
 *  ([[TargetSizeCheck]]: the size the format's writer reports), recording row
 *  count and value statistics per file. Invariant: every closed file has a [[DataFileMeta]]. */
final class RollingFileWriter(
    table: FileStoreTable,
    writers: DataFileWriters,
    val partition: Array[Byte],
    dir: Path,
    val bucket: Int,
    targetFileSize: Long,
    taskId: Int,
    fileSource: Int = DataFileMeta.FileSourceAppend) {

  private val uuid = FileStorePaths.newUuid()
  private val valueStatsOf =
    new ValueStats(StatsMode.parse(CoreOptions.StatsMode.getOrDefault(table.options)), table.schema.fields, writers)
  private val types = table.schema.fields.map(_.dataType)
  private val done = ArrayBuffer.empty[DataFileMeta]
  private var counter = 0
  private var writer: DataFileWriter = _
  private var fileName: String = _
  private var rows = 0L
  private val sizeCheck = new TargetSizeCheck(targetFileSize, types.size)
  private var stats: StatsCollector = _

  def write(row: InternalRow): Unit = {
    if (writer == null) openFile()
    writer.write(row)
    stats.update(row)
    rows += 1
    if (sizeCheck.reached(writer, row)) closeFile()
  }

  def finish(): Seq[DataFileMeta] = {
    closeFile()
    done.toSeq
  }

  def abort(): Unit = {
    TableWriter.discard(table, dir, Option(writer).map(_ -> fileName), done.toSeq)
    writer = null
    done.clear()
  }

  private def openFile(): Unit = {
    fileName = FileStorePaths.newDataFileName("data", uuid, counter, writers.format)
    counter += 1
    writer = writers.open(PathNames.child(dir, fileName, "data file").toString, taskId)
    rows = 0
    sizeCheck.reset()
    stats = valueStatsOf.newCollector()
  }

  private def closeFile(): Unit = {
    if (writer == null) return
    writer.close()
    writer = null
    val path = PathNames.child(dir, fileName, "data file")
    val size = table.fileIO.fileSize(path)
    val (valueStats, statsCols) = SimpleStats.ofFile(valueStatsOf, stats, path)
    done += DataFileMeta(
      fileName = fileName,
      fileSize = size,
      rowCount = rows,
      minKey = SimpleStats.Empty.minValues,
      maxKey = SimpleStats.Empty.maxValues,
      keyStats = SimpleStats.Empty,
      valueStats = valueStats,
      minSequenceNumber = 0L,
      maxSequenceNumber = math.max(0L, rows - 1),
      schemaId = table.schema.id,
      level = 0,
      creationTimeMillis = Some(System.currentTimeMillis()),
      deleteRowCount = Some(0L),
      fileSource = Some(fileSource),
      valueStatsCols = statsCols)
  }
}
