package lamina.spark

import java.lang.reflect.{Field, Method}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.mapreduce.{Job, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.orc.mapred.OrcStruct
import org.apache.parquet.hadoop.ParquetInputFormat
import org.apache.spark.TaskContext
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FileFormat, OutputWriter, OutputWriterFactory, PartitionedFile}
import org.apache.spark.sql.execution.datasources.orc.{OrcDeserializer, OrcFileFormat, OrcSerializer}
import org.apache.spark.sql.execution.datasources.parquet.{
  ParquetFileFormat,
  ParquetOptions,
  ParquetOutputWriter,
  ParquetReadSupport,
  ParquetUtils,
  ParquetWriteSupport
}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetPartitionReaderFactory
import org.apache.spark.sql.connector.read.PartitionReader
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{ArrayType, DataType, Decimal, DecimalType, LongType, MapType, StructField, StructType}

import lamina.format.{DataFileFormat, DataFileWriter, DataFileWriters, FileSchemaReader}
import lamina.format.avro.AvroDataFiles
import lamina.io.{FileIO, PathNames, SerializableConfiguration, StorageConf}
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.options.{CoreOptions, FileCompression, FileIndexOptions, OptionDef}
import lamina.types.{DataField, SparkTypes}

/** Spark's own file formats (`execution.datasources`), used to write and (vectorized) read data
 *  files. One of the two files that touch Spark's execution internals: Spark has no public API for
 *  its Parquet/ORC writers and readers, so they are reached here and handed to the engine as
 *  [[DataFileWriters]] and read functions. */
object DataFileFormats {

  /** Spark's file format for `format`; None for Avro, which Lamina reads and writes itself
   *  ([[AvroDataFiles]]). */
  def forName(format: DataFileFormat): Option[FileFormat] = format match {
    case DataFileFormat.Parquet => Some(new ParquetFileFormat())
    case DataFileFormat.Orc => Some(new OrcFileFormat())
    case DataFileFormat.Avro => None
  }

  /** Spark's option for the codec (the same for both formats): Paimon's names, `none` being Spark's
   *  `uncompressed`. */
  def compressionOption(codec: FileCompression): (String, String) = "compression" -> (codec match {
    case FileCompression.None => FileCompression.Uncompressed.name
    case other => other.name
  })

  /** Writers for the table's data files: the table's columns, or the key-value layout of a
   *  primary-key table, whose levels named by `file.format.per.level` or `file.compression.per.level`
   *  take their own format or codec. */
  def writers(spark: SparkSession, table: FileStoreTable): DataFileWriters = {
    val (fileFields, fileSchema) =
      if (table.isPrimaryKeyTable) {
        val layout = KeyValueLayout(table.schema)
        (layout.fileFields, layout.fileStruct)
      } else (table.schema.fields, SparkTypes.toSparkStruct(table.schema.fields))
    val codec = CoreOptions.FileCompression.getOrDefault(table.options)
    val base = writersOf(spark, table, FileLayout(table.fileFormat, codec, "file.compression"), fileFields, fileSchema)
    def ofLevels[T](option: OptionDef[Map[Int, T]]) =
      if (table.isPrimaryKeyTable) option.get(table.options).getOrElse(Map.empty) else Map.empty[Int, T]
    val formats = ofLevels(CoreOptions.FileFormatPerLevel)
    val codecs = ofLevels(CoreOptions.FileCompressionPerLevel)
    val byLevel = (formats.keySet ++ codecs.keySet).toSeq.map { level =>
      level -> FileLayout(formats.getOrElse(level, table.fileFormat), codecs.getOrElse(level, codec),
        if (codecs.contains(level)) "file.compression.per.level" else "file.compression")
    }.filter { case (_, l) => l.format != table.fileFormat || l.codec != codec }
    val others = byLevel.map(_._2).distinct.map(l => l -> writersOf(spark, table, l, fileFields, fileSchema)).toMap
    base.copy(byLevel = byLevel.map { case (level, l) => level -> others(l) }.toMap)
  }

  /** The format and codec of a table's files of some levels; `codecOption`, the option that set the
   *  codec, for errors. */
  private final case class FileLayout(format: DataFileFormat, codec: FileCompression, codecOption: String)

  private def writersOf(spark: SparkSession, table: FileStoreTable, layout: FileLayout, fileFields: Seq[DataField],
      fileSchema: StructType): DataFileWriters = {
    val job = Job.getInstance(StorageConf.overlay(SessionHadoopConf(spark), table.fileIO.hadoopConf))
    val format = layout.format
    val codec = layout.codec
    val zstd = CoreOptions.FileCompressionZstdLevel.getOrDefault(table.options)
    if (format == DataFileFormat.Avro) {
      val avroCodec = AvroDataFiles.codec(codec, CoreOptions.AvroCodec.get(table.options), zstd, layout.codecOption)
      val spec = AvroDataFiles.writerSpec(fileFields, fileSchema, avroCodec)
      val conf = new SerializableConfiguration(job.getConfiguration)
      return DataFileWriters(new AvroWriterOpener(spec, conf), conf, fileSchema, format)
    }
    val factory = forName(format).get.prepareWrite(spark, job, Map(compressionOption(codec)), fileSchema)
    val conf = job.getConfiguration
    conf.set("parquet.writer.version", FileIndexOptions.parquetWriterVersion(table.options).name)
    // no dictionary for the columns every merge reads: sequence numbers and a single-column key never
    // repeat in a file (building a dictionary until it overflows only costs the writer), and the
    // row kind, mostly one value, is as small delta encoded and then needs no lookup per record
    if (table.isPrimaryKeyTable && format == DataFileFormat.Parquet) {
      val layout = KeyValueLayout(table.schema)
      val plain = Seq(KeyValueLayout.SequenceNumber, KeyValueLayout.ValueKind) ++
        (layout.keyFields match {
          case Seq(k) => Seq(KeyValueLayout.KeyPrefix + k.name, k.name)
          case _ => Seq.empty
        })
      plain.foreach(c => conf.setBoolean(s"parquet.enable.dictionary#$c", false))
    }
    // decimals above 18 digits are fixed-length byte arrays, which Paimon's writer never puts in a
    // dictionary (its v1 pages cannot); Paimon's readers filter such a dictionary by the values'
    // minimal bytes, so a dictionary-encoded page would hide every match from them
    if (format == DataFileFormat.Parquet)
      wideDecimalPaths(fileSchema).foreach(c => conf.setBoolean(s"parquet.enable.dictionary#$c", false))
    // Paimon's readers expect INT64 timestamps and the standard (non-legacy) nested layout
    conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    conf.set("spark.sql.parquet.writeLegacyFormat", "false")
    conf.set("spark.sql.parquet.fieldId.write.enabled", "true")
    val zstdLevel = zstd.toString
    conf.set("parquet.compression.codec.zstd.level", zstdLevel)
    conf.set("orc.compression.zstd.level", zstdLevel)
    val serializableConf = new SerializableConfiguration(conf)
    val open: (String, Int) => DataFileWriter =
      if (format == DataFileFormat.Orc) new OrcWriterOpener(serializableConf, fileSchema)
      else new OutputWriterOpener(factory, serializableConf, fileSchema)
    DataFileWriters(open, serializableConf, fileSchema, format)
  }

  /** The Parquet column paths (Spark's standard layout of lists and maps) of the decimals of more
   *  than 18 digits in `schema`, nested ones too. */
  private def wideDecimalPaths(schema: StructType): Seq[String] = {
    def paths(t: DataType, path: String): Seq[String] = t match {
      case d: DecimalType if d.precision > Decimal.MAX_LONG_DIGITS => Seq(path)
      case s: StructType => s.fields.toSeq.flatMap(f => paths(f.dataType, s"$path.${f.name}"))
      case a: ArrayType => paths(a.elementType, s"$path.list.element")
      case m: MapType => paths(m.keyType, s"$path.key_value.key") ++ paths(m.valueType, s"$path.key_value.value")
      case _ => Seq.empty
    }
    schema.fields.toSeq.flatMap(f => paths(f.dataType, f.name))
  }

  /** Opens Spark's writer of one file as the engine's [[DataFileWriter]]. */
  private final class OutputWriterOpener(factory: OutputWriterFactory, conf: SerializableConfiguration,
      fileSchema: StructType)
    extends ((String, Int) => DataFileWriter) with Serializable {
    override def apply(path: String, taskId: Int): DataFileWriter = {
      val attempt = new TaskAttemptID(new TaskID("lamina", 0, TaskType.MAP, taskId), 0)
      val w = factory.newInstance(path, fileSchema, new TaskAttemptContextImpl(conf.value, attempt))
      new DataFileWriter {
        override def write(row: InternalRow): Unit = w.write(row)
        override def close(): Unit = w.close()
        override def length: Long = ParquetLength.of(w)
      }
    }
  }

  /** Opens an Avro data file ([[AvroDataFiles]]). */
  private final class AvroWriterOpener(spec: AvroDataFiles.WriterSpec, conf: SerializableConfiguration)
    extends ((String, Int) => DataFileWriter) with Serializable {
    override def apply(path: String, taskId: Int): DataFileWriter = AvroDataFiles.writer(path, spec, conf.value)
  }

  /** Spark's converter of rows of `schema` to ORC structs (for [[OrcFiles]]). */
  def orcSerializer(schema: StructType): InternalRow => OrcStruct = {
    val s = new OrcSerializer(schema)
    row => s.serialize(row)
  }

  /** Spark's converter of ORC structs to rows of `schema`, field i read from the struct's field
   *  `fromStruct(i)` (-1: null). */
  def orcDeserializer(schema: StructType, fromStruct: Array[Int]): OrcStruct => InternalRow = {
    val d = new OrcDeserializer(schema, fromStruct)
    value => d.deserialize(value)
  }

  /** Opens an ORC file as Paimon writes them ([[OrcFiles]]). */
  private final class OrcWriterOpener(conf: SerializableConfiguration, fileSchema: StructType)
    extends ((String, Int) => DataFileWriter) with Serializable {
    override def apply(path: String, taskId: Int): DataFileWriter = OrcFiles.writer(path, fileSchema, conf.value)
  }

  /** The size a Parquet file being written would have if closed now: parquet-mr's own figure
   *  (`InternalParquetRecordWriter.getDataSize`, row groups written plus pages buffered, compressed),
   *  which its writer under Spark's keeps private; so it is reached by reflection, looked up once.
   *  -1 for other formats, or where a Spark or Parquet version lays the writer out differently (the
   *  writers then roll by the rows' in-memory size). */
  private object ParquetLength {
    private lazy val access: Option[(Method, Field, Method)] =
      try {
        val recordWriter = classOf[ParquetOutputWriter].getDeclaredMethod("recordWriter")
        recordWriter.setAccessible(true)
        val internal = Class.forName("org.apache.parquet.hadoop.ParquetRecordWriter").getDeclaredField("internalWriter")
        internal.setAccessible(true)
        val dataSize = Class.forName("org.apache.parquet.hadoop.InternalParquetRecordWriter").getDeclaredMethod("getDataSize")
        dataSize.setAccessible(true)
        Some((recordWriter, internal, dataSize))
      } catch { case _: ReflectiveOperationException | _: RuntimeException => None }

    def of(w: OutputWriter): Long = w match {
      case p: ParquetOutputWriter => access.fold(-1L) { case (recordWriter, internal, dataSize) =>
          try dataSize.invoke(internal.get(recordWriter.invoke(p))).asInstanceOf[java.lang.Long].longValue()
          catch { case _: ReflectiveOperationException | _: RuntimeException => -1L }
        }
      case _ => -1L
    }
  }

  /** A column that Spark's Parquet readers fill with each row's position in its file (0 for the file's
   *  first row), row groups skipped by filters included: appended to the read columns, it lets deletion
   *  vectors apply to batches read with every filter pushed down. Parquet only. */
  val RowIndexColumn: StructField = StructField(ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME, LongType, nullable = true)

  def fillsRowIndex(format: DataFileFormat): Boolean = format == DataFileFormat.Parquet

  /** Whether Spark's reader of `format` can return columnar batches of `schema` (plain: no field ids). */
  def supportBatch(spark: SparkSession, format: DataFileFormat, schema: StructType): Boolean =
    forName(format).exists(_.supportBatch(spark, schema))

  /** A reader of data files of `fileStruct` returning `readColumns` (columnar batches, typed as rows,
   *  when `returningBatch`): a function of a file's path and length. Each file is read in the format its
   *  name ends with (a table's levels may differ, `file.format.per.level`), one of `formats`, the first
   *  one for a file whose name names none. */
  def reader(spark: SparkSession, storage: FileIO, formats: Seq[DataFileFormat], fileStruct: StructType,
      readColumns: StructType, filters: Seq[Filter], returningBatch: Boolean): (String, Long) => Iterator[InternalRow] = {
    val readers = formats.map(f => f -> reader(spark, storage, f, fileStruct, readColumns, filters, returningBatch)).toMap
    val default = readers(formats.head)
    if (readers.size == 1) default
    else (path, length) => DataFileFormat.ofFile(path).flatMap(readers.get).getOrElse(default)(path, length)
  }

  /** Spark's reader of `format` for files of `fileStruct`, returning `readColumns` (columnar batches,
   *  typed as rows, when `returningBatch`): a function of a file's path and length. ORC rows are read by
   *  [[OrcFiles]], which takes the CHAR lengths from `readColumns`' metadata; Avro rows by [[AvroDataFiles]]
   *  (filters are not pushed into Avro files: they have no statistics to skip by). */
  def reader(spark: SparkSession, storage: FileIO, format: DataFileFormat, fileStruct: StructType,
      readColumns: StructType, filters: Seq[Filter], returningBatch: Boolean): (String, Long) => Iterator[InternalRow] = {
    if (format == DataFileFormat.Orc && !returningBatch) {
      val conf = new SerializableConfiguration(readConf(spark, storage))
      return (path, _) => OrcFiles.read(path, readColumns, conf.value)
    }
    if (format == DataFileFormat.Avro) {
      val conf = new SerializableConfiguration(readConf(spark, storage))
      val columns = FileSchemaReader.plain(readColumns)
      return (path, _) => AvroDataFiles.read(path, columns, conf.value)
    }
    read(spark, storage, format, FileSchemaReader.plain(fileStruct), FileSchemaReader.plain(readColumns), filters,
      returningBatch)
  }

  private def read(spark: SparkSession, storage: FileIO, format: DataFileFormat, fileStruct: StructType,
      readColumns: StructType, filters: Seq[Filter], returningBatch: Boolean): (String, Long) => Iterator[InternalRow] = {
    if (format == DataFileFormat.Parquet && ParquetUtils.isBatchReadSupportedForSchema(spark.sessionState.conf, readColumns))
      return readParquetBatches(spark, storage, fileStruct, readColumns, filters, returningBatch)
    val read = forName(format).get.buildReaderWithPartitionValues(spark, fileStruct, new StructType(), readColumns,
      filters, Map("returning_batch" -> returningBatch.toString), readConf(spark, storage))
    (path, length) => read(partitionedFile(path, length))
  }

  private def partitionedFile(path: String, length: Long): PartitionedFile =
    PartitionedFile(InternalRow.empty, SparkPath.fromPath(PathNames.of(path)), 0, length, Array.empty[String], 0L, length,
      Map.empty)

  /** Spark's vectorized Parquet reader, as its ParquetFileFormat builds it, but on a configuration
   *  broadcast once per distinct content ([[ConfBroadcasts]]) instead of once per reader built: the
   *  settings Spark's Parquet readers take from the configuration are set here as that format sets
   *  them. Batches (typed as rows) with `returningBatch`, else their rows. */
  private def readParquetBatches(spark: SparkSession, storage: FileIO, fileStruct: StructType, readColumns: StructType,
      filters: Seq[Filter], returningBatch: Boolean): (String, Long) => Iterator[InternalRow] = {
    val sql = spark.sessionState.conf
    val conf = readConf(spark, storage)
    conf.set(ParquetInputFormat.READ_SUPPORT_CLASS, classOf[ParquetReadSupport].getName)
    conf.set(ParquetReadSupport.SPARK_ROW_REQUESTED_SCHEMA, readColumns.json)
    conf.set(ParquetWriteSupport.SPARK_ROW_SCHEMA, readColumns.json)
    conf.set(SQLConf.SESSION_LOCAL_TIMEZONE.key, sql.sessionLocalTimeZone)
    conf.setBoolean(SQLConf.NESTED_SCHEMA_PRUNING_ENABLED.key, sql.nestedSchemaPruningEnabled)
    conf.setBoolean(SQLConf.CASE_SENSITIVE.key, sql.caseSensitiveAnalysis)
    conf.setBoolean(SQLConf.PARQUET_BINARY_AS_STRING.key, sql.isParquetBinaryAsString)
    conf.setBoolean(SQLConf.PARQUET_INT96_AS_TIMESTAMP.key, sql.isParquetINT96AsTimestamp)
    conf.setBoolean(SQLConf.PARQUET_INFER_TIMESTAMP_NTZ_ENABLED.key, sql.parquetInferTimestampNTZEnabled)
    conf.setBoolean(SQLConf.LEGACY_PARQUET_NANOS_AS_LONG.key, sql.legacyParquetNanosAsLong)
    val factory = ParquetPartitionReaderFactory(sql, ConfBroadcasts.of(spark.sparkContext, conf), fileStruct, readColumns,
      new StructType(), filters.toArray, None, new ParquetOptions(Map.empty[String, String], sql))
    (path, length) => {
      val batches = readerIterator(factory.buildColumnarReader(partitionedFile(path, length)))
      // the factory closes the file it opened last when it opens the next; a merge reads several files
      // of one factory at once, and each reader here closes its own file
      forgetLastFile(factory)
      if (returningBatch) batches.asInstanceOf[Iterator[InternalRow]]
      else batches.flatMap(_.rowIterator().asScala)
    }
  }

  private lazy val (readerCallback, callbackReader): (Field, Field) = {
    val callback = classOf[ParquetPartitionReaderFactory].getDeclaredField("parquetReaderCallback")
    callback.setAccessible(true)
    val reader = callback.getType.getDeclaredField("iter")
    reader.setAccessible(true)
    (callback, reader)
  }

  private def forgetLastFile(factory: ParquetPartitionReaderFactory): Unit =
    callbackReader.set(readerCallback.get(factory), null)

  /** The values of `reader`, which is closed at their end, or when the task ends (a reader left
   *  before its end, as a key range does). */
  private def readerIterator[T](reader: PartitionReader[T]): Iterator[T] = {
    var closed = false
    def close(): Unit = if (!closed) { closed = true; reader.close() }
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))
    new Iterator[T] {
      private var ready = false
      private var more = true
      override def hasNext: Boolean = {
        if (!ready && more) {
          more = reader.next()
          ready = true
          if (!more) close()
        }
        more
      }
      override def next(): T = {
        if (!hasNext) throw new NoSuchElementException("the file has no more rows")
        ready = false
        reader.get()
      }
    }
  }

  /** Hadoop settings of data-file reads: Parquet pages are checked against the CRC their header
   *  carries (Lamina's writers write one), unless the session says otherwise; the file-system settings
   *  are the table's (its catalog's storage options). */
  private def readConf(spark: SparkSession, storage: FileIO): Configuration = {
    val conf = StorageConf.overlay(spark.sessionState.newHadoopConf(), storage.hadoopConf)
    if (conf.get(VerifyPageChecksum) == null) conf.setBoolean(VerifyPageChecksum, true)
    conf
  }

  private val VerifyPageChecksum = "parquet.page.verify-checksum.enabled"
}
