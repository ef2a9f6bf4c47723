package lamina.spark.write

import org.apache.hadoop.mapreduce.{Job, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.types.StructType

import lamina.io.SerializableConfiguration
import lamina.spark.DataFileFormats
import lamina.table.FileStoreTable
import lamina.table.options.CoreOptions
import lamina.types.SparkTypes

/** Everything an executor needs to open data-file writers of one table: Spark's writer factory for
 *  the table's format (prepared once on the driver), the Hadoop configuration, and the file schema
 *  (with Paimon field ids, which Parquet records). */
final case class DataFileWriters(
    factory: OutputWriterFactory,
    conf: SerializableConfiguration,
    fileSchema: StructType,
    format: String) extends Serializable {

  def open(path: String, taskId: Int): OutputWriter = {
    val attempt = new TaskAttemptID(new TaskID("lamina", 0, TaskType.MAP, taskId), 0)
    val ctx = new TaskAttemptContextImpl(conf.value, attempt)
    factory.newInstance(path, fileSchema, ctx)
  }
}

object DataFileWriters {
  /** Writers for the table's data files: the table's columns, or the key-value layout of a
   *  primary-key table. */
  def prepare(spark: SparkSession, table: FileStoreTable): DataFileWriters = {
    val fileSchema =
      if (table.isPrimaryKeyTable) lamina.table.KeyValueLayout(table.schema).fileStruct
      else SparkTypes.toSparkStruct(table.schema.fields)
    prepare(spark, table, fileSchema)
  }

  def prepare(spark: SparkSession, table: FileStoreTable, fileSchema: StructType): DataFileWriters = {
    val format = table.fileFormat
    val job = Job.getInstance(lamina.table.Warehouse.hadoopConf(spark))
    val codec = CoreOptions.FileCompression.getOrDefault(table.options)
    val factory = DataFileFormats.forName(format).prepareWrite(spark, job,
      Map(DataFileFormats.compressionOption(format, codec)), fileSchema)
    val conf = job.getConfiguration
    conf.set("parquet.writer.version", CoreOptions.ParquetWriterVersion.getOrDefault(table.options))
    // no dictionary for the columns every merge reads: sequence numbers and a single-column key never
    // repeat in a file (building a dictionary until it overflows only costs the writer), and the
    // row kind, mostly one value, is as small delta encoded and then needs no lookup per record
    if (table.isPrimaryKeyTable && format == "parquet") {
      val layout = lamina.table.KeyValueLayout(table.schema)
      val plain = Seq(lamina.table.KeyValueLayout.SequenceNumber, lamina.table.KeyValueLayout.ValueKind) ++
        (layout.keyFields match {
          case Seq(k) => Seq(lamina.table.KeyValueLayout.KeyPrefix + k.name, k.name)
          case _ => Seq.empty
        })
      plain.foreach(c => conf.setBoolean(s"parquet.enable.dictionary#$c", false))
    }
    // Paimon's readers expect INT64 timestamps and the standard (non-legacy) nested layout
    conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    conf.set("spark.sql.parquet.writeLegacyFormat", "false")
    conf.set("spark.sql.parquet.fieldId.write.enabled", "true")
    val zstdLevel = CoreOptions.FileCompressionZstdLevel.getOrDefault(table.options).toString
    conf.set("parquet.compression.codec.zstd.level", zstdLevel)
    conf.set("orc.compression.zstd.level", zstdLevel)
    DataFileWriters(factory, new SerializableConfiguration(conf), fileSchema, format)
  }
}
