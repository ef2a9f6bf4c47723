package lamina.spark.compact

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.functions.expr

import lamina.errors.BadInputException
import lamina.spark.DataFileFormats
import lamina.spark.read.{AppendReaderFactory, DataFileReaders}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.scan.{DataSplit, FileStoreScan}
import lamina.table.sink.AppendTableWrite
import lamina.table.sort.{OrderedBytes, SortKey}
import lamina.types.SparkTypes

/** An append table's sort compaction as Spark jobs of the active session: readers and writers
 *  prepared once on the driver, rows read by the engine's append readers (deletion vectors applied)
 *  and written by its [[AppendTableWrite]], which rolls files at `target-file-size`. */
object SparkAppendRewrite {

  /** Every row keyed by its partition (length-prefixed bytes, so that partitions never interleave)
   *  and `key`, range-partitioned and sorted by Spark (spilling as it needs) into about one task per
   *  `target-file-size` of input, each task writing its run of keys. `progress` is told, on the
   *  driver, each time a task has written its run (`lamina: compact db.t, sorted: 3/8 key ranges written`). */
  def sort(table: FileStoreTable, splits: Seq[DataSplit], key: SortKey,
      progress: Option[String => Unit] = None): Seq[CommitMessage] = {
    val spark = SparkSession.active
    val readers = rowReaders(spark, table, splits)
    val writers = DataFileFormats.writers(spark, table)
    val struct = SparkTypes.toSparkStruct(table.schema.fields)
    val target = CoreOptions.TargetFileSize.getOrDefault(table.options)
    val inputBytes = splits.flatMap(_.files).map(_.fileSize).sum
    val tasks = math.max(1L, math.min((inputBytes + target - 1) / target, 10000L)).toInt
    val inputs = splits.flatMap(s => s.files.map(f => s.copy(files = Seq(f))))
    val keyed = spark.sparkContext.parallelize(inputs, math.max(1, math.min(inputs.size, spark.sparkContext.defaultParallelism)))
      .flatMap { s =>
        val unsafe = UnsafeProjection.create(struct)
        val prefix = java.nio.ByteBuffer.allocate(4 + s.partition.length).putInt(s.partition.length).put(s.partition).array()
        readers.rowsOf(s).map(r => (prefix ++ key(r), unsafe(r).copy()))
      }
    implicit val order: Ordering[Array[Byte]] = OrderedBytes.Unsigned
    val written = keyed.sortByKey(ascending = true, tasks).mapPartitionsWithIndex { (i, rows) =>
      val sink = new AppendTableWrite(table, writers, i)
      try {
        rows.foreach { case (_, r) => sink.write(r) }
        Iterator.single(sink.prepareCommit().toArray)
      } catch {
        case e: Throwable => sink.abort(); throw e
      }
    }
    val ranges = written.getNumPartitions
    var done = 0
    TaskResults.collect(written) { (_, _) =>
      done += 1
      progress.foreach(say => say(s"lamina: compact ${table.name}, sorted: $done/$ranges key ranges written"))
    }
  }

  /** The partitions of the latest snapshot whose values satisfy the SQL condition `where`, evaluated
   *  by Spark over the partition columns alone (so a condition on another column is refused). */
  def partitionsWhere(table: FileStoreTable, where: String): InternalRow => Boolean = {
    val schema = table.schema
    if (schema.partitionKeys.isEmpty)
      throw new BadInputException(s"Argument 'where' selects partitions, but table ${table.name} is not partitioned")
    val spark = SparkSession.active
    val struct = SparkTypes.toSparkStruct(schema.partitionFields)
    val toRow = CatalystTypeConverters.createToScalaConverter(struct)
    val store = table.manifestStore
    val partitions = table.snapshotManager.latest().toSeq
      .flatMap(s => new FileStoreScan(table, s).plan().map(_.partition).map(java.nio.ByteBuffer.wrap)).distinct
      .map(b => toRow(store.decodePartition(b.array())).asInstanceOf[Row])
    val selected =
      try {
        val condition = expr(where)
        spark.createDataFrame(partitions.asJava, struct).where(condition).collect().toSet
      } catch {
        case e @ (_: ParseException | _: AnalysisException) =>
          throw new BadInputException(
            s"Argument 'where' must be a condition on the partition columns of table " +
              s"${table.name} (${schema.partitionKeys.mkString(", ")}): ${e.getMessage}", e)
      }
    row => selected.contains(toRow(row).asInstanceOf[Row])
  }

  private def rowReaders(spark: SparkSession, table: FileStoreTable, splits: Seq[DataSplit]): AppendReaderFactory =
    DataFileReaders.factory(spark, table, splits.flatMap(_.files.map(_.schemaId)).distinct,
      SparkTypes.toSparkStruct(table.schema.fields), Seq.empty)
}
