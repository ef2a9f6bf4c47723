package lamina.format

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types.StructType

import lamina.io.{FileIO, PathNames, SerializableConfiguration}

/** Everything an executor needs to open data-file writers of one table: the opener of a file of
 *  the table's format (prepared once on the driver), the Hadoop configuration, and the file schema
 *  (with Paimon field ids, which Parquet records). */
final case class DataFileWriters(
    opener: (String, Int) => DataFileWriter,
    conf: SerializableConfiguration,
    fileSchema: StructType,
    format: DataFileFormat)
  extends Serializable {

  /** A writer of a new file at `path`, for the task `taskId`. */
  def open(path: String, taskId: Int): DataFileWriter = opener(path, taskId)
}

object DataFileWriters {

  /** Removes what a file writer of `dir` wrote: the file still open (closed first) and the finished
   *  ones. Used when a task aborts; nothing committed references these files. */
  def discard(fileIO: FileIO, dir: Path, open: Option[(DataFileWriter, String)], done: Seq[String]): Unit = {
    open.foreach { case (w, name) =>
      try w.close()
      catch { case _: Exception => () }
      fileIO.deleteQuietly(PathNames.child(dir, name, "data file"))
    }
    done.foreach(name => fileIO.deleteQuietly(PathNames.child(dir, name, "data file")))
  }
}
