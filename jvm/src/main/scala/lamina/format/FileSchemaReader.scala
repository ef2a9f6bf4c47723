package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  ArrayTransform,
  BoundReference,
  Cast,
  CreateNamedStruct,
  Expression,
  GetStructField,
  If,
  IsNull,
  LambdaFunction,
  Literal,
  NamedLambdaVariable,
  TransformValues,
  UnsafeProjection
}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

import lamina.types.SparkTypes
import org.apache.spark.sql.vectorized.ColumnarBatch

/** How to read the data files written under one schema id into rows of the requested (current)
 *  columns: which file columns to read (matched by field id, so renames and drops work), and the
 *  projection that fills added columns with null and widens changed types. `read` reads a file given its
 *  path and length (Spark's reader of the format, built by the Spark adapter). */
final case class FileSchemaReader(
    read: (String, Long) => Iterator[InternalRow],
    fileColumns: StructType,
    outputFromFile: Array[Int],
    outputSchema: StructType,
    filtered: Boolean = false,
    fileColumnsWithIds: StructType = null,
    outputWithIds: StructType = null)
  extends Serializable {

  val identity: Boolean = outputFromFile.indices.forall(i => outputFromFile(i) == i) &&
    outputFromFile.length == fileColumns.length &&
    fileColumns.fields.zip(outputSchema.fields).forall { case (a, b) => a.dataType == b.dataType }

  /** The raw rows of one data file (columnar batches, typed as rows, when built `returningBatch`); a
   *  missing file, or one the format's decoder cannot read (a bad footer, a page whose checksum does
   *  not match, undecodable bytes), is reported as a corrupt file naming it and the table. A file read
   *  to its end without filters must hold the rows its manifest entry counts: a garbled footer can
   *  make a decoder see fewer rows, or none, without failing. */
  def open(dir: String, file: DataFileRef, tableName: String): Iterator[InternalRow] = {
    val path = file.pathIn(dir).toString
    DataFileGuard.guarded(DataFileGuard.asCorrupt(path, tableName)(read(path, file.size)), path, tableName,
      if (filtered) -1L else file.rowCount)
  }

  /** [[open]] of a reader built `returningBatch`: its iterator yields ColumnarBatch objects despite its type. */
  def openBatches(dir: String, file: DataFileRef, tableName: String): Iterator[ColumnarBatch] =
    open(dir, file, tableName).asInstanceOf[Iterator[ColumnarBatch]]

  /** Whether every output column read from the file keeps the file's type (none was widened). */
  val sameTypes: Boolean = outputFromFile.indices.forall { i =>
    outputFromFile(i) < 0 || fileColumns(outputFromFile(i)).dataType == outputSchema(i).dataType
  }

  /** The conversion of a file row to an output row, reusing one buffer or view: the identity, a
   *  view (columns reordered or missing), or a projection when a column's type was widened. */
  def projection(): InternalRow => InternalRow = {
    if (identity) return r => r
    if (sameTypes) {
      val view = new NullPaddedRow(outputSchema, outputFromFile)
      return r => view.project(r)
    }
    val fromIds = Option(fileColumnsWithIds).getOrElse(fileColumns)
    val toIds = Option(outputWithIds).getOrElse(outputSchema)
    val exprs: Seq[Expression] = outputSchema.fields.toSeq.zipWithIndex.map { case (f, i) =>
      val j = outputFromFile(i)
      if (j < 0) Literal(null, f.dataType)
      else FileSchemaReader.converted(BoundReference(j, fileColumns(j).dataType, nullable = true),
        fromIds(j).dataType, toIds(i).dataType)
    }
    val p = UnsafeProjection.create(exprs)
    r => p(r)
  }
}

object FileSchemaReader {

  /** `src`, a value of the file's type `from`, as a value of the current type `to` (both with Paimon
   *  field ids on struct fields): a struct's fields are matched by id, so nested fields added since
   *  the file was written read as null, renamed ones keep their values and dropped ones go; lists and
   *  maps convert their elements so; an atomic type is widened by a cast. */
  def converted(src: Expression, from: DataType, to: DataType): Expression = {
    val target = plainType(to)
    if (plainType(from) == target) return src
    (from, to) match {
      case (f: StructType, t: StructType) =>
        val fields = t.fields.toSeq.flatMap { tf =>
          val value = f.fields.indexWhere(ff => idOf(ff) >= 0 && idOf(ff) == idOf(tf)) match {
            case -1 => Literal(null, plainType(tf.dataType))
            case at => converted(GetStructField(src, at), f.fields(at).dataType, tf.dataType)
          }
          Seq(Literal(tf.name), value)
        }
        If(IsNull(src), Literal(null, target), CreateNamedStruct(fields))
      case (f: ArrayType, t: ArrayType) =>
        val element = NamedLambdaVariable("element", plainType(f.elementType), f.containsNull)
        ArrayTransform(src, LambdaFunction(converted(element, f.elementType, t.elementType), Seq(element)))
      case (f: MapType, t: MapType) if plainType(f.keyType) == plainType(t.keyType) =>
        val key = NamedLambdaVariable("key", plainType(f.keyType), nullable = false)
        val value = NamedLambdaVariable("value", plainType(f.valueType), f.valueContainsNull)
        TransformValues(src, LambdaFunction(converted(value, f.valueType, t.valueType), Seq(key, value)))
      case _ => Cast(src, target)
    }
  }

  private def idOf(f: StructField): Long =
    if (f.metadata.contains(SparkTypes.FieldIdKey)) f.metadata.getLong(SparkTypes.FieldIdKey) else -1L

  /** Names, types and nullability only: no field ids (files are matched by name by Spark's readers;
   *  files written by other writers may have no ids). */
  def plain(s: StructType): StructType = StructType(s.fields.map(f => StructField(f.name, plainType(f.dataType), f.nullable)))

  def plainType(t: DataType): DataType = t match {
    case s: StructType => StructType(s.fields.map(f => StructField(f.name, plainType(f.dataType), f.nullable)))
    case a: ArrayType => a.copy(elementType = plainType(a.elementType))
    case m: MapType => m.copy(keyType = plainType(m.keyType), valueType = plainType(m.valueType))
    case other => other
  }
}
