package lamina.table.stats

import java.time.{LocalDateTime, ZoneOffset}

import org.apache.spark.sql.types.Decimal

import lamina.types._

/** Values printed as Paimon's serializers print them in a statistics file (`serializeToString`):
 *  numbers and booleans as Java prints them, decimals in plain notation, a DATE as its day number
 *  since 1970-01-01, a TIMESTAMP as `yyyy-MM-dd HH:mm:ss` with its fraction cut to no fewer than the
 *  type's precision digits by dropping trailing zeros (a TIMESTAMP WITH LOCAL TIME ZONE as the UTC
 *  wall clock of its instant), strings as they are. Inputs are Spark internal values. */
object StatsValues {

  /** Whether min and max are recorded for `t` (the types Spark's ANALYZE gives min and max). */
  def hasMinMax(t: DataType): Boolean = t match {
    case _: TinyIntType | _: SmallIntType | _: IntType | _: BigIntType | _: FloatType | _: DoubleType |
        _: DecimalType | _: BooleanType | _: DateType | _: TimestampType | _: LocalZonedTimestampType => true
    case _ => false
  }

  def print(t: DataType, v: Any): String = t match {
    case _: DecimalType => v.asInstanceOf[Decimal].toJavaBigDecimal.toPlainString
    case ts: TimestampType => timestamp(v.asInstanceOf[Long], ts.precision)
    case ts: LocalZonedTimestampType => timestamp(v.asInstanceOf[Long], ts.precision)
    case _ => v.toString
  }

  private def timestamp(micros: Long, precision: Int): String = {
    val t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1000000L), (Math.floorMod(micros, 1000000L) * 1000).toInt,
      ZoneOffset.UTC)
    var fraction = f"${t.getNano}%09d"
    while (fraction.length > precision && fraction.endsWith("0")) fraction = fraction.dropRight(1)
    f"${t.getYear}%04d-${t.getMonthValue}%02d-${t.getDayOfMonth}%02d ${t.getHour}%02d:${t.getMinute}%02d:" +
      f"${t.getSecond}%02d" + (if (fraction.nonEmpty) "." + fraction else "")
  }
}
