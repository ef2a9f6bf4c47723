package lamina.format

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, Expression, Literal, UnsafeProjection}
import org.apache.spark.sql.types.StructType
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
    filtered: Boolean = false) extends Serializable {

  val identity: Boolean = outputFromFile.indices.forall(i => outputFromFile(i) == i) &&
    outputFromFile.length == fileColumns.length &&
    fileColumns.fields.zip(outputSchema.fields).forall { case (a, b) => a.dataType == b.dataType }

  /** The raw rows of one data file (columnar batches, typed as rows, when built `returningBatch`); a
   *  missing file, or one the format's decoder cannot read (a bad footer, a page whose checksum does
   *  not match, undecodable bytes), is reported as a corrupt file naming it and the table. A file read
   *  to its end without filters must hold the rows its manifest entry counts: a garbled footer can
   *  make a decoder see fewer rows, or none, without failing. */
  def open(dir: String, file: DataFileRef, tableName: String): Iterator[InternalRow] = {
    val path = new Path(dir, file.name).toString
    DataFileGuard.guarded(DataFileGuard.asCorrupt(path, tableName)(read(path, file.size)), path, tableName,
      if (filtered) -1L else file.rowCount)
  }

  /** [[open]] of a reader built `returningBatch`: its iterator yields ColumnarBatch objects despite its type. */
  def openBatches(dir: String, file: DataFileRef, tableName: String): Iterator[ColumnarBatch] =
    open(dir, file, tableName).asInstanceOf[Iterator[ColumnarBatch]]

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
