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
    outputSchema: StructType) extends Serializable {

  val identity: Boolean = outputFromFile.indices.forall(i => outputFromFile(i) == i) &&
    outputFromFile.length == fileColumns.length &&
    fileColumns.fields.zip(outputSchema.fields).forall { case (a, b) => a.dataType == b.dataType }

  /** The raw rows of one data file (columnar batches, typed as rows, when built `returningBatch`); a
   *  missing file is reported as a corrupt table naming it. */
  def open(bucketPath: String, f: lamina.table.manifest.DataFileMeta, tableName: String): Iterator[InternalRow] = {
    val path = new Path(bucketPath, f.fileName)
    val pf = PartitionedFile(InternalRow.empty, SparkPath.fromPath(path), 0, f.fileSize, Array.empty[String], 0L, f.fileSize, Map.empty)
    try read(pf) catch {
      case e: java.io.FileNotFoundException =>
        throw new CorruptFileException(path.toString, 0, s"data file of table $tableName", "missing file", "", e)
    }
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
      Map("returning_batch" -> returningBatch.toString), spark.sessionState.newHadoopConf())
    FileSchemaReader(read, fileColumns, outputFromFile, plain(output))
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
