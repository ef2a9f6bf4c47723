package lamina.spark

import org.apache.spark.sql.connector.catalog.MetadataColumn
import org.apache.spark.sql.types.DataType

import lamina.spark.write.PrimaryKeyWrites
import lamina.table.FileStoreTable
import lamina.types.SparkTypes

/** Hidden columns of a primary-key table ordered by a nullable `sequence.field`:
 *  `__lamina_sequence_<f>` reads as the value of column `f`. A row-level delete asks for them because
 *  its record must carry the deleted row's sequence values to order after the row, and Spark hands a
 *  delete only its row id, whose columns must be NOT NULL, and the metadata columns it asks for
 *  ([[PrimaryKeyWrites.deleteMetadataFields]]). */
object SequenceMetadataColumns {
  val Prefix = "__lamina_sequence_"

  def name(field: String): String = Prefix + field

  /** The data column a metadata column reads, when `column` is one. */
  def source(column: String): Option[String] =
    if (column.startsWith(Prefix)) Some(column.stripPrefix(Prefix)) else None

  def of(table: FileStoreTable): Array[MetadataColumn] =
    PrimaryKeyWrites.deleteMetadataFields(table).map { f =>
      val t = SparkTypes.toSpark(table.schema.field(f).get.dataType)
      new MetadataColumn {
        override def name(): String = SequenceMetadataColumns.name(f)
        override def dataType(): DataType = t
        override def isNullable: Boolean = true
        override def comment(): String = s"the value of sequence.field column $f"
      }
    }.toArray
}
