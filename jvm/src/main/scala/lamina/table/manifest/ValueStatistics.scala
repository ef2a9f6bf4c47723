package lamina.table.manifest

import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.BinaryRowCodec
import lamina.table.schema.TableSchema
import lamina.types.{DataField, SparkTypes}

/** The value statistics of a data file, decoded with the schema it was written with. */
object ValueStatistics {

  /** The columns `f`'s value statistics cover (fields of `fileSchema`) and their minimums and
   *  maximums, as rows in that order; None when it keeps none, names a column the schema lacks, or
   *  its bytes do not decode (nested columns have only null counts: their slots are null). */
  def decode(f: DataFileMeta, fileSchema: TableSchema): Option[(Seq[DataField], InternalRow, InternalRow)] = {
    val statsCols = f.valueStatsCols.getOrElse(fileSchema.fieldNames)
    if (statsCols.isEmpty || f.valueStats.minValues == null) return None
    val statsFields = statsCols.flatMap(fileSchema.field)
    if (statsFields.size != statsCols.size) return None
    val types = statsFields.map(_.dataType)
    try Some((statsFields, BinaryRowCodec.deserialize(f.valueStats.minValues, types),
          BinaryRowCodec.deserialize(f.valueStats.maxValues, types)))
    catch { case _: Exception => None }
  }

  /** The smallest value of column `field` (matched by field id, written with the same type) in `f`,
   *  as a Catalyst value; None where its statistics do not say. */
  def min(f: DataFileMeta, fileSchema: TableSchema, field: DataField): Option[Any] =
    decode(f, fileSchema).flatMap { case (fields, mins, _) =>
      val i = fields.indexWhere(_.id == field.id)
      if (i < 0 || fields(i).dataType.withNullable(true) != field.dataType.withNullable(true) || mins.isNullAt(i)) None
      else Some(mins.get(i, SparkTypes.toSpark(field.dataType)))
    }
}
