package lamina.table.options

import java.time.LocalDateTime
import java.time.format.DateTimeFormatter
import java.time.temporal.ChronoUnit

/** How often automatic tags are made (table option [[CoreOptions.TagCreationPeriod]], Paimon's values),
 *  and how a period's start is written as a tag name (Paimon's default formats). */
sealed abstract class TagCreationPeriod(name: String, hours: Int, pattern: String) extends EnumValue(name) {
  private def formatter = DateTimeFormatter.ofPattern(pattern)

  /** The start of the period before the one `time` lies in: the period a tag made at `time` names. */
  def previousPeriod(time: LocalDateTime): LocalDateTime = {
    val day = time.truncatedTo(ChronoUnit.DAYS)
    val start = day.plusHours((time.getHour / hours * hours).toLong)
    start.minusHours(hours.toLong)
  }

  def next(periodStart: LocalDateTime): LocalDateTime = periodStart.plusHours(hours.toLong)

  def tagName(periodStart: LocalDateTime): String = periodStart.format(formatter)

  /** The period start an automatic tag's name stands for, if it is one. */
  def parse(tagName: String): Option[LocalDateTime] =
    try {
      val t = if (hours == 24) java.time.LocalDate.parse(tagName, formatter).atStartOfDay()
      else LocalDateTime.parse(tagName, formatter)
      Some(t).filter(tagName == this.tagName(_))
    } catch { case _: java.time.format.DateTimeParseException => None }
}

object TagCreationPeriod {
  case object Daily extends TagCreationPeriod("daily", 24, "yyyy-MM-dd")
  case object Hourly extends TagCreationPeriod("hourly", 1, "yyyy-MM-dd HH")
  case object TwoHours extends TagCreationPeriod("two-hours", 2, "yyyy-MM-dd HH")

  val All: Seq[TagCreationPeriod] = Seq(Daily, Hourly, TwoHours)
}

/** When automatic tags are made (table option [[CoreOptions.TagAutomaticCreation]]): Lamina implements
 *  Paimon's `none` and `process-time` (by the commit time of snapshots); `watermark` and `batch` are
 *  refused as values. */
sealed abstract class TagCreationMode(name: String) extends EnumValue(name)

object TagCreationMode {
  case object None extends TagCreationMode("none")
  case object ProcessTime extends TagCreationMode("process-time")

  val All: Seq[TagCreationMode] = Seq(None, ProcessTime)
}
