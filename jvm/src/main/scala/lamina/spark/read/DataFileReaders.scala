package lamina.spark.read

import org.apache.hadoop.fs.Path
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, Expression, Literal, UnsafeProjection}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import lamina.errors.CorruptFileException
import lamina.spark.DataFileFormats
import lamina.table.FileStoreTable
import lamina.table.schema.TableSchema
import lamina.types.SparkTypes

/** How to read the data files written under one schema id into rows of the requested (current)
 *  columns: which file columns to read (matched by field id, so renames and drops work), and the
 *  projection that fills added columns with null and widens changed types. */
final case class FileSchemaReader(
    read: PartitionedFile => Iterator[InternalRow],
    fileColumns: StructType,
    outputFromFile: Array[Int],
    outputSchema: StructType,
    filtered: Boolean = false) extends Serializable {

  val identity: Boolean = outputFromFile.indices.forall(i => outputFromFile(i) == i) &&
    outputFromFile.length == fileColumns.length &&
    fileColumns.fields.zip(outputSchema.fields).forall { case (a, b) => a.dataType == b.dataType }

  /** The raw rows of one data file (columnar batches, typed as rows, when built `returningBatch`); a
   *  missing file, or one the format's decoder cannot read (a bad footer, a page whose checksum does
   *  not match, undecodable bytes), is reported as a corrupt file naming it and the table. A file read
   *  to its end without filters must hold the rows its manifest entry counts: a garbled footer can
   *  make a decoder see fewer rows, or none, without failing. */
  def open(bucketPath: String, f: lamina.table.manifest.DataFileMeta, tableName: String): Iterator[InternalRow] = {
    val path = new Path(bucketPath, f.fileName)
    val pf = PartitionedFile(InternalRow.empty, SparkPath.fromPath(path), 0, f.fileSize, Array.empty[String], 0L, f.fileSize, Map.empty)
    DataFileReaders.guarded(DataFileReaders.asCorrupt(path.toString, tableName)(read(pf)), path.toString, tableName,
      if (filtered) -1L else f.rowCount)
  }

  /** [[open]] of a reader built `returningBatch`: its iterator yields ColumnarBatch objects despite its type. */
  def openBatches(bucketPath: String, f: lamina.table.manifest.DataFileMeta, tableName: String): Iterator[ColumnarBatch] =
    open(bucketPath, f, tableName).asInstanceOf[Iterator[ColumnarBatch]]

  /** Whether every output column read from the file keeps the file's type (none was widened). */
  val sameTypes: Boolean = outputFromFile.indices.forall { i =>
    outputFromFile(i) < 0 || fileColumns(outputFromFile(i)).dataType == outputSchema(i).dataType }

  /** The conversion of a file row to an output row, reusing one buffer or view: the identity, a
   *  view (columns reordered or missing), or a projection when a column's type was widened. */
  def projection(): InternalRow => InternalRow = {
    if (identity) return r => r
    if (sameTypes) {
      val view = new NullPaddedRow(outputSchema, outputFromFile)
      return r => view.project(r)
    }
    val exprs: Seq[Expression] = outputSchema.fields.toSeq.zipWithIndex.map { case (f, i) =>
      val j = outputFromFile(i)
      if (j < 0) Literal(null, f.dataType)
      else {
        val src = BoundReference(j, fileColumns(j).dataType, nullable = true)
        if (fileColumns(j).dataType == f.dataType) src else Cast(src, f.dataType)
      }
    }
    val p = UnsafeProjection.create(exprs)
    r => p(r)
  }
}

object DataFileReaders {
  /** Runs `body`, a step of reading data file `path`, reporting a failure to read or decode the file
   *  as a [[CorruptFileException]]. An interrupted read (a cancelled task) is not corruption. */
  @inline def asCorrupt[T](path: => String, tableName: => String)(body: => T): T =
    try body catch {
      case e: java.io.FileNotFoundException =>
        throw new CorruptFileException(path, -1, s"data file of table $tableName", "missing file", "", e)
      case e @ (_: java.io.InterruptedIOException | _: java.nio.channels.ClosedByInterruptException) => throw e
      case e @ (_: java.io.IOException | _: org.apache.parquet.io.ParquetDecodingException) =>
        throw corrupt(path, tableName, e)
      case e: RuntimeException if thrownByDecoder(e) => throw corrupt(path, tableName, e)
    }

  /** Code that decodes data files: bytes it rejects (a null where a page header needs a field, a
   *  schema name the footer garbled, an offset outside the file) surface as runtime exceptions
   *  thrown from within it or from the JDK code it calls. */
  private val DecoderPackages = Seq("org.apache.parquet.", "shaded.parquet.", "org.apache.orc.",
    "com.github.luben.zstd.", "org.xerial.snappy.", "io.airlift.compress.", "net.jpountz.")

  /** How deep in the stack a decoder frame may lie: it may have called into the JDK (a buffer's limit). */
  private val DecoderFrames = 8

  private def thrownByDecoder(e: Throwable): Boolean =
    e.getStackTrace.iterator.take(DecoderFrames).exists(f => DecoderPackages.exists(f.getClassName.startsWith)) ||
      Option(e.getMessage).exists(_.contains("is not a Parquet file"))

  /** `it` with each step under [[asCorrupt]], and, when `expectedRows` >= 0, a check at its end that it
   *  yielded that many rows (a batch counts its rows). Generic, so that no element is cast: a reader
   *  built `returningBatch` yields batches through an iterator typed as one of rows. */
  def guarded[T](it: Iterator[T], path: String, tableName: String, expectedRows: Long = -1L): Iterator[T] =
    new Iterator[T] {
      private var rows = 0L
      override def hasNext: Boolean = {
        val more = asCorrupt(path, tableName)(it.hasNext)
        if (!more && expectedRows >= 0 && rows != expectedRows)
          throw new CorruptFileException(path, -1, s"$expectedRows rows (the manifest's count) in a data file of table $tableName",
            s"$rows rows")
        more
      }
      override def next(): T = {
        val x = asCorrupt(path, tableName)(it.next())
        rows += (x match { case b: ColumnarBatch => b.numRows; case _ => 1 })
        x
      }
    }

  private def corrupt(path: String, tableName: String, e: Throwable) =
    new CorruptFileException(path, -1, s"a readable data file of table $tableName", "bytes its decoder rejects",
      String.valueOf(e.getMessage), e)

  /** Hadoop settings of data-file reads: Parquet pages are checked against the CRC their header
   *  carries (Lamina's writers write one), unless the session says otherwise. */
  private def readConf(spark: SparkSession): org.apache.hadoop.conf.Configuration = {
    val conf = spark.sessionState.newHadoopConf()
    if (conf.get(VerifyPageChecksum) == null) conf.setBoolean(VerifyPageChecksum, true)
    conf
  }

  private val VerifyPageChecksum = "parquet.page.verify-checksum.enabled"

  /** Names, types and nullability only: files are matched by name here, never by Parquet field id
   *  (files written by other writers may have none). */
  private def plain(s: StructType): StructType = StructType(s.fields.map(f => StructField(f.name, plainType(f.dataType), f.nullable)))

  private def plainType(t: org.apache.spark.sql.types.DataType): org.apache.spark.sql.types.DataType = {
    import org.apache.spark.sql.{types => st}
    t match {
      case s: st.StructType => plain(s)
      case a: st.ArrayType => a.copy(elementType = plainType(a.elementType))
      case m: st.MapType => m.copy(keyType = plainType(m.keyType), valueType = plainType(m.valueType))
      case other => other
    }
  }

  def forSchema(spark: SparkSession, table: FileStoreTable, fileSchema: TableSchema, required: StructType,
      filters: Seq[Filter], returningBatch: Boolean = false): FileSchemaReader = {
    val current = table.schema
    val currentStruct = SparkTypes.toSparkStruct(current.fields)
    val output = StructType(required.fields.map(f => currentStruct(f.name)))
    // only value filters: partition filters were applied exactly to whole files already
    val pushable =
      if (fileSchema.id != current.id) Seq.empty
      else filters.filter(f => f.references.forall(r => !current.partitionKeys.contains(r)))
    forStructs(spark, SparkTypes.toSparkStruct(fileSchema.fields), output, pushable, fileSchema, returningBatch)
  }

  /** Whether Spark's reader of the table's format can return columnar batches of `schema`. */
  def supportsBatch(spark: SparkSession, table: FileStoreTable, schema: StructType): Boolean =
    supportsBatch(spark, table.fileFormat, schema)

  def supportsBatch(spark: SparkSession, format: String, schema: StructType): Boolean =
    schema.nonEmpty && DataFileFormats.forName(format).supportBatch(spark, plain(schema))

  /** A reader of files whose columns are `fileStruct` producing rows of `output`; columns are
   *  matched by Paimon field id (the `parquet.field.id` metadata of both structs). */
  def forStructs(spark: SparkSession, fileStruct: StructType, output: StructType, filters: Seq[Filter],
      fileSchema: TableSchema, returningBatch: Boolean = false): FileSchemaReader = {
    def id(f: StructField): Long = f.metadata.getLong(SparkTypes.FieldIdKey)
    val byId = fileStruct.fields.map(f => id(f) -> f).toMap
    val wanted = output.fields.map(f => byId.get(id(f)).map(_.name))
    val fileCols = wanted.flatten.distinct
    val plainFile = plain(fileStruct)
    val fileColumns = StructType(fileCols.map(n => plainFile(n)))
    val outputFromFile = wanted.map(_.map(n => fileCols.indexOf(n)).getOrElse(-1))
    // a Parquet row-group filter on a column this read does not return drops row groups
    val readNames = fileColumns.fieldNames.toSet
    val pushable = filters.filter(_.references.forall(readNames.contains))
    val format = DataFileFormats.forName(lamina.table.options.CoreOptions.FileFormat.getOrDefault(fileSchema.options))
    val read = format.buildReaderWithPartitionValues(spark, plainFile, new StructType(), fileColumns, pushable,
      Map("returning_batch" -> returningBatch.toString), readConf(spark))
    FileSchemaReader(read, fileColumns, outputFromFile, plain(output), filtered = pushable.nonEmpty)
  }

  def factory(spark: SparkSession, table: FileStoreTable, schemaIds: Seq[Long], required: StructType,
      filters: Seq[Filter]): PartitionReaderFactory = {
    val readers = schemaIds.map { id =>
      val s = if (id == table.schema.id) table.schema else table.schemaManager.schema(id)
      id -> forSchema(spark, table, s, required, filters)
    }.toMap
    new AppendReaderFactory(readers, table.name)
  }
}

/** Reads append-table splits: the files of a split, one after the other, no merging. */
class AppendReaderFactory(readers: Map[Long, FileSchemaReader], tableName: String) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    IteratorReader(rowsOf(partition.asInstanceOf[LaminaInputPartition].split))
  }

  def rowsOf(split: lamina.table.scan.DataSplit): Iterator[InternalRow] = {
    split.files.iterator.flatMap { f =>
      val r = readers(f.schemaId)
      r.open(split.bucketPath, f, tableName).map(r.projection())
    }
  }
}

/** Reads splits that need no merging and no schema conversion as Spark's columnar batches
 *  (vectorized Parquet/ORC), the fastest path: append tables and compacted primary-key buckets. */
class ColumnarReaderFactory(readers: Map[Long, FileSchemaReader], tableName: String) extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new IllegalStateException("columnar reader factory asked for rows")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    IteratorReader(split.files.iterator.flatMap(f => readers(f.schemaId).openBatches(split.bucketPath, f, tableName)))
  }
}
