package lamina.format

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.fileindex.{DataFileIndexWriter, FileIndexSpec}
import lamina.io.FileIO
import lamina.table.FileStorePaths
import lamina.table.manifest.SimpleStats

/** The data files one task writes into one bucket ([[DataFileDir]]: its directory or external roots), one open at a time: each named
 *  `<prefix>-<uuid>-<n>.<format>` ([[FileStorePaths.newDataFileName]]), written through the format's
 *  writers with its value statistics collected per row, and closed into its name, size and statistics
 *  ([[DataFileRoll.Closed]]), from which the caller builds the file's metadata. With a `fileIndex`, each
 *  file's indexes are collected from the same rows and embedded in its metadata, or written beside it as
 *  `<file>.index` when larger than the spec's threshold. A file under an external root records its full path. `abort` removes every file this roll wrote,
 *  open or closed, index files included. Not thread-safe: one per writer. */
final class DataFileRoll(
    fileIO: FileIO,
    dir: DataFileDir,
    writers: DataFileWriters,
    taskId: Int,
    prefix: String,
    valueStatsOf: ValueStats,
    targetFileSize: Long,
    columns: Int,
    fileIndex: Option[FileIndexSpec] = None) {

  private val uuid = FileStorePaths.newUuid()
  private val sizeCheck = new TargetSizeCheck(targetFileSize, columns)
  private val closed = ArrayBuffer.empty[Path]
  private var counter = 0
  private var fileName: String = _
  private var placed: DataFileDir.Placed = _
  private var writer: DataFileWriter = _
  private var values: StatsCollector = _
  private var index: DataFileIndexWriter = _

  def isOpen: Boolean = writer != null

  /** Opens the next file. */
  def open(): Unit = {
    fileName = FileStorePaths.newDataFileName(prefix, uuid, counter, writers.format)
    counter += 1
    placed = dir.place(fileName)
    writer = writers.open(placed.path.toString, taskId)
    sizeCheck.reset()
    values = valueStatsOf.newCollector()
    index = fileIndex.filterNot(_.isEmpty).map(_.newWriter()).orNull
  }

  /** Writes `fileRow` to the open file, `row` (the table's columns) to its value statistics; true when
   *  the file reached the target size ([[TargetSizeCheck]]), so the caller closes it. */
  def write(fileRow: InternalRow, row: InternalRow): Boolean = {
    writer.write(fileRow)
    values.update(row)
    if (index != null) index.update(row)
    sizeCheck.reached(writer, row)
  }

  /** Closes the open file, which holds at least one row. */
  def close(): DataFileRoll.Closed = {
    writer.close()
    writer = null
    val path = placed.path
    val (stats, statsCols) = SimpleStats.ofFile(valueStatsOf, values, path)
    closed += path
    val (embedded, extra) = if (index == null) (None, Nil)
    else {
      val (bytes, inManifest) = index.result()
      index = null
      if (inManifest) (Some(bytes), Nil)
      else {
        val name = DataFileIndexWriter.indexFileName(fileName)
        val indexPath = placed.sibling(name, "file index")
        fileIO.writeBytes(indexPath, bytes)
        closed += indexPath
        (None, Seq(name))
      }
    }
    DataFileRoll.Closed(fileName, fileIO.fileSize(path), stats, statsCols, embedded, extra, placed.externalPath)
  }

  /** Removes every file this roll wrote: the open one (closed first) and the closed ones. */
  def abort(): Unit = {
    DataFileWriters.discard(fileIO, Option(writer).map(_ -> placed.path), closed.toSeq)
    writer = null
    closed.clear()
  }
}

object DataFileRoll {

  /** A closed file: its name, size in bytes, value statistics with the columns they cover (None: every
   *  column), its embedded file index, its extra files (the index file written beside it) and its full
   *  path when it lies under an external root. */
  final case class Closed(fileName: String, fileSize: Long, valueStats: SimpleStats, valueStatsCols: Option[Seq[String]],
      embeddedIndex: Option[Array[Byte]] = None, extraFiles: Seq[String] = Nil, externalPath: Option[String] = None)
}
