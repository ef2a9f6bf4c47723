package lamina.spark

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.DataType

import lamina.table.FileStoreTable
import lamina.table.options.MergeEngine
import lamina.table.sink.PrimaryKeyWrites
import lamina.types.SparkTypes

/** Hidden metadata columns of a primary-key table, each reading as one of its data columns. Spark's
 *  row-level DML hands a writer only the new row, the row id (whose columns must be NOT NULL) and the
 *  metadata columns the operation asks for; these carry what else a writer must know of the old row:
 *  - `__lamina_deleted_<f>`, for each column f outside the row id: a delete's record carries the
 *    whole deleted row, as Paimon's deletes do ([[PrimaryKeyWrites.deletedRowFields]]);
 *  - `__lamina_before_<f>`, for each nullable non-key column f of a partial-update table: an update
 *    that leaves f NULL is honoured only where f was NULL already, as a NULL never overwrites a value
 *    there ([[PrimaryKeyWrites.updateMetadataFields]]). */
object MirrorColumns {
  val DeletedPrefix = "__lamina_deleted_"
  val BeforePrefix = "__lamina_before_"

  def deleted(field: String): String = DeletedPrefix + field

  def before(field: String): String = BeforePrefix + field

  /** The data column a metadata column reads, when `column` is one. */
  def source(column: String): Option[String] =
    Seq(DeletedPrefix, BeforePrefix).collectFirst { case p if column.startsWith(p) => column.stripPrefix(p) }

  def of(table: FileStoreTable): Array[MetadataColumn] = {
    def mirror(column: String, f: String, what: String): MetadataColumn = {
      val t = SparkTypes.toSpark(table.schema.field(f).get.dataType)
      new MetadataColumn {
        override def name(): String = column
        override def dataType(): DataType = t
        override def isNullable: Boolean = true
        override def comment(): String = s"the value of $what column $f"
      }
    }
    (PrimaryKeyWrites.deletedRowFields(table).map(f => mirror(deleted(f), f, "the deleted row's")) ++
      PrimaryKeyWrites.updateMetadataFields(table).map(f => mirror(before(f), f, MergeEngine.PartialUpdate.name))).toArray
  }
}
