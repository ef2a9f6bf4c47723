package lamina.table.stats

import java.util.regex.Pattern

import scala.util.Try

import lamina.errors.CorruptFileException
import lamina.table.schema.TableSchema
import lamina.types._

/** What a [[Statistics]] file must satisfy beyond its JSON shape, checked when it is read: Paimon's
 *  format has no checksum, so damage is caught where it breaks these rules and reported as a
 *  [[CorruptFileException]] naming the file. It must describe a snapshot no later than the one naming
 *  it, of a schema of the table whose columns it names with their field ids; counts are not negative, no column has
 *  more NULLs than the table has rows, a column's average length is at most its maximum, and min and
 *  max read as values of the column's type ([[StatsValues]]'s printing) with min <= max. Damage that
 *  keeps to these rules (a digit changed for another) only misleads the optimizer's estimates: the
 *  statistics never decide which rows a query returns. */
object StatisticsCheck {

  def check(stats: Statistics, namingSnapshot: Long, schema: TableSchema, path: String): Statistics = {
    def corrupt(expected: String, actual: String) = throw new CorruptFileException(path, -1, expected, actual)
    if (stats.snapshotId > namingSnapshot)
      corrupt(s"statistics of snapshot $namingSnapshot or earlier", s"snapshotId ${stats.snapshotId}")
    def nonNegative(what: String, v: Option[Long]): Unit =
      v.filter(_ < 0).foreach(n => corrupt(s"$what >= 0", n.toString))
    nonNegative("mergedRecordCount", stats.mergedRecordCount)
    nonNegative("mergedRecordSize", stats.mergedRecordSize)
    stats.colStats.foreach { case (name, c) =>
      val field = schema.fields.find(_.name == name)
        .getOrElse(corrupt(s"colStats of columns of schema ${schema.id}", s"column '$name'"))
      if (field.id != c.colId) corrupt(s"colStats.$name.colId ${field.id}", c.colId.toString)
      Seq("distinctCount" -> c.distinctCount, "nullCount" -> c.nullCount, "avgLen" -> c.avgLen, "maxLen" -> c.maxLen)
        .foreach { case (what, v) => nonNegative(s"colStats.$name.$what", v) }
      for (nulls <- c.nullCount; rows <- stats.mergedRecordCount if nulls > rows)
        corrupt(s"colStats.$name.nullCount <= mergedRecordCount $rows", nulls.toString)
      for (avg <- c.avgLen; max <- c.maxLen if avg > max) corrupt(s"colStats.$name.avgLen <= maxLen $max", avg.toString)
      val min = c.min.map(v => value(field.dataType, v).getOrElse(corrupt(s"colStats.$name.min of type ${field.dataType}", v)))
      val max = c.max.map(v => value(field.dataType, v).getOrElse(corrupt(s"colStats.$name.max of type ${field.dataType}", v)))
      for (lo <- min; hi <- max if lo.compare(hi) > 0)
        corrupt(s"colStats.$name.min <= max ${c.max.get}", c.min.get)
    }
    stats
  }

  /** The printed statistics value `v` of type `t` as something ordered, None when it is no such value. */
  private def value(t: DataType, v: String): Option[Ordered[Any]] = {
    t match {
      case _: TinyIntType | _: SmallIntType | _: IntType | _: BigIntType | _: DateType =>
        Try(v.toLong).toOption.map(Wrapped(_))
      case _: FloatType | _: DoubleType => Try(v.toDouble).toOption.map(Wrapped(_))
      case _: DecimalType => Try(BigDecimal(v)).toOption.map(Wrapped(_))
      case _: BooleanType => if (v == "true" || v == "false") Some(Wrapped(v == "true")) else None
      case _: TimestampType | _: LocalZonedTimestampType =>
        if (TimestampText.pattern.matcher(v).matches()) Some(Wrapped(v)) else None
      case _ => Some(Wrapped(v))
    }
  }

  private final case class Wrapped[T](x: T)(implicit o: Ordering[T]) extends Ordered[Any] {
    def compare(that: Any): Int = o.compare(x, that.asInstanceOf[Wrapped[T]].x)
  }

  /** `yyyy-MM-dd HH:mm:ss[.f...]`, the printing of [[StatsValues]]: ordered as text. */
  private object TimestampText {
    val pattern: Pattern = Pattern.compile("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?")
  }
}
