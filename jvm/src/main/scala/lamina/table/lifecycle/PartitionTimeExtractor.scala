package lamina.table.lifecycle

import java.time.{LocalDate, LocalDateTime, LocalTime}
import java.time.format.{DateTimeFormatter, DateTimeFormatterBuilder, DateTimeParseException, ResolverStyle, SignStyle}
import java.time.temporal.ChronoField._
import java.util.Locale

import lamina.errors.BadInputException

/** Reads the time of a partition from its values, as Paimon's `PartitionTimeExtractor`: `pattern`
 *  (`$dt`, `$year-$month-$day $hour:00:00`; the longest key wins where keys share a prefix) spells the
 *  text from the values, by default the first value; `formatter` (a Java DateTimeFormatter pattern)
 *  reads it, by default `yyyy-MM-dd[ HH:mm:ss[.fffffffff]]` with one-digit fields allowed. A date
 *  alone is its midnight. Pure. */
final case class PartitionTimeExtractor(pattern: Option[String], formatter: Option[String]) {
  private val parser: Option[DateTimeFormatter] = formatter.map { f =>
    try DateTimeFormatter.ofPattern(f, Locale.ROOT)
    catch {
      case e: IllegalArgumentException => throw new BadInputException(s"Invalid timestamp_formatter '$f': ${e.getMessage}", e)
    }
  }

  /** The time the values spell; a [[DateTimeParseException]] when they spell none. */
  def extract(keys: Seq[String], values: Seq[String]): LocalDateTime = {
    val text = pattern.fold(values.head)(PartitionTimeExtractor.spell(_, keys, values))
    parser match {
      case None => PartitionTimeExtractor.parseDefault(text)
      case Some(p) =>
        try LocalDateTime.parse(text, p)
        catch { case _: DateTimeParseException => LocalDate.parse(text, p).atTime(LocalTime.MIDNIGHT) }
    }
  }
}

object PartitionTimeExtractor {
  private val Date = new DateTimeFormatterBuilder().appendValue(YEAR, 1, 10, SignStyle.NORMAL).appendLiteral('-')
    .appendValue(MONTH_OF_YEAR, 1, 2, SignStyle.NORMAL).appendLiteral('-').appendValue(DAY_OF_MONTH, 1, 2, SignStyle.NORMAL)
  private val DateOnly = Date.toFormatter.withResolverStyle(ResolverStyle.LENIENT)
  private val Timestamp = new DateTimeFormatterBuilder().append(DateOnly).optionalStart().appendLiteral(' ')
    .appendValue(HOUR_OF_DAY, 1, 2, SignStyle.NORMAL).appendLiteral(':').appendValue(MINUTE_OF_HOUR, 1, 2, SignStyle.NORMAL)
    .appendLiteral(':').appendValue(SECOND_OF_MINUTE, 1, 2, SignStyle.NORMAL).optionalStart()
    .appendFraction(NANO_OF_SECOND, 1, 9, true).optionalEnd().optionalEnd().toFormatter
    .withResolverStyle(ResolverStyle.LENIENT)

  def parseDefault(text: String): LocalDateTime =
    try LocalDateTime.parse(text, Timestamp)
    catch { case _: DateTimeParseException => LocalDate.parse(text, DateOnly).atTime(LocalTime.MIDNIGHT) }

  /** `pattern` with each `$key` replaced by that key's value. */
  def spell(pattern: String, keys: Seq[String], values: Seq[String]): String = {
    val byLength = keys.indices.sortBy(i => -keys(i).length)
    val out = new StringBuilder
    var i = 0
    while (i < pattern.length) {
      val matched =
        if (pattern.charAt(i) == '$') byLength.find(k => pattern.regionMatches(i + 1, keys(k), 0, keys(k).length))
        else None
      matched match {
        case Some(k) => out.append(values(k)); i += 1 + keys(k).length
        case None => out.append(pattern.charAt(i)); i += 1
      }
    }
    out.toString
  }
}
