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

  def projection(): InternalRow => InternalRow = {
    if (identity) return r => r
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
      filters: Seq[Filter]): FileSchemaReader = {
    val current = table.schema
    val fileStruct = plain(SparkTypes.toSparkStruct(fileSchema.fields))
    val wanted = required.fields.map { f =>
      val id = current.field(f.name).map(_.id)
      id.flatMap(fileSchema.fieldById).map(_.name)
    }
    val fileCols = wanted.flatten.distinct
    val fileColumns = StructType(fileCols.map(n => fileStruct(n)))
    val outputFromFile = wanted.map(_.map(n => fileCols.indexOf(n)).getOrElse(-1))
    // only value filters on columns this read returns: partition filters were applied exactly
    // to whole files already, and a Parquet row-group filter on an unread column drops row groups
    val readNames = fileColumns.fieldNames.toSet
    val pushable =
      if (fileSchema.id != current.id) Seq.empty
      else filters.filter(f => f.references.forall(r => readNames.contains(r) && !current.partitionKeys.contains(r)))
    val format = DataFileFormats.forName(lamina.table.options.CoreOptions.FileFormat.getOrDefault(fileSchema.options))
    val read = format.buildReaderWithPartitionValues(spark, fileStruct, new StructType(), fileColumns, pushable,
      Map("returning_batch" -> "false"), spark.sessionState.newHadoopConf())
    FileSchemaReader(read, fileColumns, outputFromFile, plain(required))
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
    val split = partition.asInstanceOf[LaminaInputPartition].split
    val rows = split.files.iterator.flatMap { f =>
      val r = readers(f.schemaId)
      val path = new Path(split.bucketPath, f.fileName)
      val pf = PartitionedFile(InternalRow.empty, SparkPath.fromPath(path), 0, f.fileSize, Array.empty[String], 0L, f.fileSize, Map.empty)
      val proj = r.projection()
      val it = try r.read(pf) catch {
        case e: java.io.FileNotFoundException =>
          throw new CorruptFileException(path.toString, 0, s"data file of table $tableName", "missing file", "", e)
      }
      it.map(proj)
    }
    new PartitionReader[InternalRow] {
      private var current: InternalRow = _
      override def next(): Boolean = if (rows.hasNext) { current = rows.next(); true } else false
      override def get(): InternalRow = current
      override def close(): Unit = ()
    }
  }
}
