package lamina.spark

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.{DataType, LongType, StringType, StructType}

import lamina.table.FileStoreTable

/** Hidden metadata columns of an append table with deletion vectors that say where a row lives: the
 *  name of its data file (`__lamina_file`) and its position in that file (`__lamina_row_position`,
 *  0-based, counting the rows the file's deletion vector deletes). Together they are the row id of
 *  its DELETE, UPDATE and MERGE ([[LaminaDeletionVectorOperation]]); a query may select them too. */
object RowPositionColumns {
  val File = "__lamina_file"
  val Position = "__lamina_row_position"
  val Names: Seq[String] = Seq(File, Position)

  def of(table: FileStoreTable): Array[MetadataColumn] =
    if (table.isPrimaryKeyTable || !table.capabilities.deletionVectors) Array.empty
    else
      Array(column(File, StringType, "the name of the row's data file"),
        column(Position, LongType, "the row's 0-based position in its data file"))

  /** Whether a scan returning `schema` must say where each row lives. */
  def requested(schema: StructType): Boolean = schema.fieldNames.exists(Names.contains)

  private def column(n: String, t: DataType, doc: String): MetadataColumn = new MetadataColumn {
    override def name(): String = n
    override def dataType(): DataType = t
    override def isNullable: Boolean = false
    override def comment(): String = doc
  }
}
