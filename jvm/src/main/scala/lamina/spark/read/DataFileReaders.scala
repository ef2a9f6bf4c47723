package lamina.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, JoinedRow}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.unsafe.types.UTF8String

import lamina.dv.DeletionVectorFilter
import lamina.format.{DataFileFormat, FileSchemaReader}
import lamina.mergetree.KeyValueReaders
import lamina.spark.{DataFileFormats, OrcFiles, RowPositionColumns}
import lamina.io.FileIO
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.options.CoreOptions
import lamina.table.schema.TableSchema
import lamina.table.scan.DataSplit
import lamina.types.SparkTypes

/** Builds the engine's readers of a table's data files from Spark's readers of its format. */
object DataFileReaders {
  private def plain(s: StructType): StructType = FileSchemaReader.plain(s)

  /** With `withRowIndex` (Parquet), each row carries its position in its file after the requested
   *  columns ([[DataFileFormats.RowIndexColumn]]), so that filters can be pushed into files with deletion vectors. */
  def forSchema(spark: SparkSession, table: FileStoreTable, fileSchema: TableSchema, required: StructType,
      filters: Seq[Filter], returningBatch: Boolean = false, withRowIndex: Boolean = false): FileSchemaReader = {
    val current = table.schema
    val currentStruct = SparkTypes.toSparkStruct(current.fields)
    val output = StructType(required.fields.map(f => currentStruct(f.name)))
    // only value filters: partition filters were applied exactly to whole files already; none where
    // deletion vectors count rows by their positions in the file (unless the reader says each row's)
    val pushable =
      if (fileSchema.id != current.id || (table.capabilities.deletionVectors && !withRowIndex)) Seq.empty
      else filters.filter(f => f.references.forall(r => !current.partitionKeys.contains(r)))
    forStructs(spark, table.fileIO, SparkTypes.toSparkStruct(fileSchema.fields), output, pushable, fileSchema, returningBatch,
      withRowIndex)
  }

  /** Whether Spark's reader of each of `formats` (those of the files read) can return columnar batches
   *  of `schema`. */
  def supportsBatch(spark: SparkSession, table: FileStoreTable, formats: Seq[DataFileFormat], schema: StructType): Boolean =
    formats.forall(f =>
      supportsBatch(spark, f, schema) &&
        (f != DataFileFormat.Orc || OrcFiles.vectorizable(SparkTypes.toSparkStruct(table.schema.fields))))

  def supportsBatch(spark: SparkSession, format: DataFileFormat, schema: StructType): Boolean =
    schema.nonEmpty && DataFileFormats.supportBatch(spark, format, plain(schema))

  /** A reader of files whose columns are `fileStruct` producing rows of `output`; columns are
   *  matched by Paimon field id (the `parquet.field.id` metadata of both structs). */
  def forStructs(spark: SparkSession, storage: FileIO, fileStruct: StructType, output: StructType, filters: Seq[Filter],
      fileSchema: TableSchema, returningBatch: Boolean = false, withRowIndex: Boolean = false): FileSchemaReader = {
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
    val rowIndex = if (withRowIndex) Seq(DataFileFormats.RowIndexColumn) else Seq.empty
    // Paimon writes the files waiting in a postpone-bucket table's bucket-postpone in Avro (only rows
    // are read from them: a postpone compaction reads them one by one)
    val postponeFiles =
      if (!returningBatch && fileSchema.numBuckets == FileStorePaths.PostponeBucket) Seq(DataFileFormat.Avro) else Seq.empty
    val formats = (CoreOptions.fileFormats(fileSchema.options) ++ postponeFiles).distinct
    val read = DataFileFormats.reader(spark, storage, formats, fileStruct,
      StructType(fileCols.map(n => fileStruct(n)) ++ rowIndex), pushable, returningBatch)
    FileSchemaReader(read, fileColumns, outputFromFile, plain(output), filtered = pushable.nonEmpty,
      fileColumnsWithIds = StructType(fileCols.map(n => fileStruct(n))), outputWithIds = output)
  }

  def factory(spark: SparkSession, table: FileStoreTable, schemaIds: Seq[Long], required: StructType,
      filters: Seq[Filter]): AppendReaderFactory =
    new AppendReaderFactory(bySchema(spark, table, schemaIds, required, filters), table.name,
      DeletionVectorFilter(table.fileIO))

  /** The reader of the files of each schema id ([[forSchema]]). */
  def bySchema(spark: SparkSession, table: FileStoreTable, schemaIds: Seq[Long], required: StructType,
      filters: Seq[Filter], withRowIndex: Boolean = false): Map[Long, FileSchemaReader] =
    schemaIds.map { id =>
      val s = if (id == table.schema.id) table.schema else table.schemaManager.schema(id)
      id -> forSchema(spark, table, s, required, filters, withRowIndex = withRowIndex)
    }.toMap
}

/** Reads append-table splits: the files of a split, one after the other, no merging, each without
 *  the rows its deletion vector deletes. */
class AppendReaderFactory(readers: Map[Long, FileSchemaReader], tableName: String, deletionVectors: DeletionVectorFilter)
  extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val counters = new ScanCounters
    IteratorReader(rowsOf(partition.asInstanceOf[LaminaInputPartition].split, counters), counters)
  }

  /** The rows of `split`'s files, counted in `counters` as they are read. */
  def rowsOf(split: DataSplit, counters: ScanCounters = new ScanCounters): Iterator[InternalRow] = {
    split.files.iterator.flatMap { f =>
      val r = readers(f.schemaId)
      counters.opened(f)
      deletionVectors(split.deletionFiles, f.fileName, f.rowCount, r.open(split.bucketPath, KeyValueReaders.refOf(f), tableName),
        counters.deletedRow).map(r.projection())
    }
  }
}

/** Reads append-table splits saying where each row lives: the requested columns of `required` from
 *  the file (`readers`, built for the data columns, in order) and its file name and position
 *  ([[RowPositionColumns]]) wherever `required` asks for them, without the rows that deletion vectors
 *  delete. `withRowIndex`: the readers append each row's position in its file (Parquet), so filters
 *  may skip row groups; otherwise they push no filter and positions are counted. */
class RowPositionReaderFactory(readers: Map[Long, FileSchemaReader], required: StructType, tableName: String,
    deletionVectors: DeletionVectorFilter, withRowIndex: Boolean)
  extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    val data = required.fieldNames.filterNot(RowPositionColumns.Names.contains)
    // a reader's rows may keep the row index after the data columns: the place follows the row's width
    def ordinals(width: Int) = required.fieldNames.toIndexedSeq.map {
      case RowPositionColumns.File => width
      case RowPositionColumns.Position => width + 1
      case n => data.indexOf(n)
    }
    val joined = new JoinedRow()
    val counters = new ScanCounters
    IteratorReader(split.files.iterator.flatMap {
        f =>
          val r = readers(f.schemaId)
          counters.opened(f)
          val project = r.projection()
          val place = new GenericInternalRow(Array[Any](UTF8String.fromString(f.fileName), 0L))
          val dv = deletionVectors.vector(split.deletionFiles, f.fileName, f.rowCount)
          var out: ProjectingInternalRow = null
          var counted = -1L
          r.open(split.bucketPath, KeyValueReaders.refOf(f), tableName).flatMap { raw =>
            counted += 1
            val position = if (withRowIndex) raw.getLong(raw.numFields - 1) else counted
            if (dv.exists(_.isDeleted(position))) { counters.deletedRows(1); None }
            else {
              val row = project(raw)
              if (out == null) out = ProjectingInternalRow(required, ordinals(row.numFields))
              place.setLong(1, position)
              out.project(joined(row, place))
              Some(out)
            }
          }
      }, counters)
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
    val counters = new ScanCounters
    IteratorReader(
      split.files.iterator.flatMap { f =>
        counters.opened(f)
        readers(f.schemaId).openBatches(split.bucketPath, KeyValueReaders.refOf(f), tableName)
      },
      counters)
  }
}
