package lamina.table

import java.time.{LocalDate, LocalDateTime, ZoneOffset}
import java.time.format.DateTimeFormatter

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.types._

/** Partition values as text, for directory names and for the `$partitions` / `$files` tables. */
object PartitionValues {

  /** The text of a partition directory name under Paimon's `partition.legacy-name` (its default):
   *  the internal value's own text, so a DATE is its epoch day (`19723`) and a TIMESTAMP is
   *  `LocalDateTime.toString` (`2024-01-01T12:30`, seconds left out when zero); every other type
   *  reads as [[toPathString]]. */
  def toLegacyPathString(row: InternalRow, i: Int, t: DataType): String = {
    if (row.isNullAt(i)) return null
    t match {
      case _: DateType => row.getInt(i).toString
      case _: TimestampType | _: LocalZonedTimestampType => localDateTime(row.getLong(i)).toString
      case other => toPathString(row, i, other)
    }
  }

  /** The text of a partition directory name: [[toLegacyPathString]] under `partition.legacy-name`
   *  (Paimon's default); otherwise Paimon's SQL text, where a TIMESTAMP(p) always carries p
   *  fractional digits (`2024-01-01 12:30:00.000000`). */
  def toDirectoryText(row: InternalRow, i: Int, t: DataType, legacy: Boolean): String =
    if (legacy) toLegacyPathString(row, i, t)
    else if (row.isNullAt(i)) null
    else t match {
      case ts: TimestampType => withPrecision(localDateTime(row.getLong(i)), ts.precision)
      case ts: LocalZonedTimestampType => withPrecision(localDateTime(row.getLong(i)), ts.precision)
      case other => toPathString(row, i, other)
    }

  private def withPrecision(dt: LocalDateTime, precision: Int): String = {
    val base = dt.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))
    if (precision <= 0) base else base + "." + f"${dt.getNano}%09d".take(precision)
  }

  private def localDateTime(micros: Long): LocalDateTime =
    LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1000000L), (Math.floorMod(micros, 1000000L) * 1000).toInt, ZoneOffset.UTC)

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
        localDateTime(row.getLong(i)).format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).replace('T', ' ')
      case _: BinaryType | _: VarBinaryType => java.util.Base64.getEncoder.encodeToString(row.getBinary(i))
      case other => throw new BadInputException(s"Type ${other.asSQLString} cannot be a partition column")
    }
  }

  /** `{k=v, ...}` as Paimon's system tables print a partition. */
  def describe(row: InternalRow, keys: Seq[String], types: Seq[DataType]): String =
    keys.indices.map(i => s"${keys(i)}=${Option(toPathString(row, i, types(i))).getOrElse("null")}")
      .mkString("{", ", ", "}")
}
