package lamina.table

import java.time.{LocalDate, LocalDateTime, ZoneOffset}
import java.time.format.DateTimeFormatter

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.types._

/** Partition values as text, for directory names and for the `$partitions` / `$files` tables. */
object PartitionValues {
  def toPathString(row: InternalRow, i: Int, t: DataType): String = {
    if (row.isNullAt(i)) return null
    t match {
      case _: BooleanType => row.getBoolean(i).toString
      case _: TinyIntType => row.getByte(i).toString
      case _: SmallIntType => row.getShort(i).toString
      case _: IntType => row.getInt(i).toString
      case _: BigIntType => row.getLong(i).toString
      case _: FloatType => row.getFloat(i).toString
      case _: DoubleType => row.getDouble(i).toString
      case d: DecimalType => row.getDecimal(i, d.precision, d.scale).toJavaBigDecimal.toPlainString
      case _: CharType | _: VarCharType => row.getUTF8String(i).toString
      case _: DateType => LocalDate.ofEpochDay(row.getInt(i)).toString
      case _: TimestampType | _: LocalZonedTimestampType =>
        val micros = row.getLong(i)
        val dt = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1000000L),
          (Math.floorMod(micros, 1000000L) * 1000).toInt, ZoneOffset.UTC)
        dt.format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).replace('T', ' ')
      case _: BinaryType | _: VarBinaryType => java.util.Base64.getEncoder.encodeToString(row.getBinary(i))
      case other => throw new BadInputException(s"Type ${other.asSQLString} cannot be a partition column")
    }
  }

  /** `{k=v, ...}` as Paimon's system tables print a partition. */
  def describe(row: InternalRow, keys: Seq[String], types: Seq[DataType]): String =
    keys.indices.map(i => s"${keys(i)}=${Option(toPathString(row, i, types(i))).getOrElse("null")}")
      .mkString("{", ", ", "}")
}
