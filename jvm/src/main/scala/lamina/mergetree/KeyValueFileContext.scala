package lamina.mergetree

import lamina.format.{DataFileDir, DataFileWriters}
import lamina.format.fileindex.FileIndexSpec
import lamina.io.FileIO
import lamina.table.KeyValueLayout
import lamina.table.manifest.DataFileMeta
import lamina.table.options.{CoreOptions, FileIndexOptions}

/** What writing one table version's key-value files needs, resolved once (on the driver, from the
 *  table: `FileStoreTable.keyValueFiles`) and carried to the executors: the table's name for
 *  messages, its file IO, its key layout (schema and key columns), the data-file writers of its format,
 *  the option values the writer uses, and the file indexes its data files carry. The merge tree gets these, never the table. */
final case class KeyValueFileContext(
    tableName: String,
    fileIO: FileIO,
    layout: KeyValueLayout,
    writers: DataFileWriters,
    statsMode: String,
    targetFileSize: Long,
    fileIndex: Option[FileIndexSpec] = None)
  extends Serializable {

  /** A writer of one (partition, bucket)'s files placed by `dir` (see [[KeyValueFileWriter]]); data files are
   *  named `<dataPrefix>-<uuid>-<count>.<format>`. */
  def writer(partition: Array[Byte], dir: DataFileDir, bucket: Int, firstSequence: Long = 0L, taskId: Int = 0, level: Int = 0,
      fileSource: Int = DataFileMeta.FileSourceAppend, uniqueKeys: Boolean = false,
      changelog: Boolean = false, dataPrefix: String = KeyValueFileWriter.DataPrefix): KeyValueFileWriter =
    new KeyValueFileWriter(this, partition, dir, bucket, firstSequence, taskId, level, fileSource, uniqueKeys, changelog,
      dataPrefix)
}

object KeyValueFileContext {

  /** The context of a table with this layout and options. */
  def of(tableName: String, fileIO: FileIO, layout: KeyValueLayout, options: Map[String, String],
      writers: DataFileWriters): KeyValueFileContext =
    KeyValueFileContext(tableName, fileIO, layout, writers, CoreOptions.StatsMode.getOrDefault(options),
      CoreOptions.TargetFileSize.getOrDefault(options), FileIndexOptions.spec(options, layout.schema.fields, tableName))
}
