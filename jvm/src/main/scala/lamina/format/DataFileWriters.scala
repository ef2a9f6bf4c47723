package lamina.format

import java.io.IOException

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types.StructType

import lamina.io.{FileIO, PathNames, SerializableConfiguration, StorageFailure}

/** Everything an executor needs to open data-file writers of one table: the opener of a file of
 *  the table's format (prepared once on the driver), the Hadoop configuration, and the file schema
 *  (with Paimon field ids, which Parquet records); `byLevel`, the writers of the levels whose files
 *  take another format (`file.format.per.level`). */
final case class DataFileWriters(
    opener: (String, Int) => DataFileWriter,
    conf: SerializableConfiguration,
    fileSchema: StructType,
    format: DataFileFormat,
    byLevel: Map[Int, DataFileWriters] = Map.empty)
  extends Serializable {

  /** The writers of the files of `level`. */
  def forLevel(level: Int): DataFileWriters = byLevel.getOrElse(level, this)

  /** A writer of a new file at `path`, for the task `taskId`; a file the file system refuses to create
   *  (read-only, no permission, no space) is a [[lamina.errors.StorageException]] naming it and why. */
  def open(path: String, taskId: Int): DataFileWriter =
    try opener(path, taskId)
    catch {
      case e: Exception =>
        val io = DataFileWriters.ioCause(e).getOrElse(throw e)
        val p = PathNames.of(path)
        throw StorageFailure(p.getFileSystem(conf.value), "write", p, io)
    }
}

object DataFileWriters {

  /** The first IOException in `e`'s cause chain (writers of some formats wrap it). */
  private def ioCause(e: Throwable): Option[IOException] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(16).collectFirst { case io: IOException => io }

  /** Removes what a file writer wrote: the file still open (closed first) and the finished ones. Used
   *  when a task aborts; nothing committed references these files. */
  def discard(fileIO: FileIO, open: Option[(DataFileWriter, Path)], done: Seq[Path]): Unit = {
    open.foreach { case (w, path) =>
      try w.close()
      catch { case _: Exception => () }
      fileIO.deleteQuietly(path)
    }
    done.foreach(fileIO.deleteQuietly)
  }
}
