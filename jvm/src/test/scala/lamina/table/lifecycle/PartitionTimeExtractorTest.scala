package lamina.table.lifecycle

import java.time.LocalDateTime
import java.time.format.DateTimeParseException

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

class PartitionTimeExtractorTest extends AnyFunSuite {
  private val keys = Seq("year", "month", "day", "hour")

  test("by default the first value, read as a date or a timestamp with one-digit fields allowed") {
    val e = PartitionTimeExtractor(None, None)
    assert(e.extract(Seq("dt"), Seq("2024-05-01")) === LocalDateTime.of(2024, 5, 1, 0, 0))
    assert(e.extract(Seq("dt", "x"), Seq("2024-5-1 7:08:09.5", "z")) === LocalDateTime.of(2024, 5, 1, 7, 8, 9, 500000000))
    intercept[DateTimeParseException](e.extract(Seq("dt"), Seq("yesterday")))
  }

  test("a pattern spells the text from several values, the longest key first; a formatter reads it") {
    val e = PartitionTimeExtractor(Some("$year-$month-$day $hour:00:00"), None)
    assert(e.extract(keys, Seq("2024", "05", "01", "13")) === LocalDateTime.of(2024, 5, 1, 13, 0))
    assert(PartitionTimeExtractor.spell("$dt $dt1", Seq("dt", "dt1"), Seq("a", "b")) === "a b")
    val f = PartitionTimeExtractor(Some("$dt"), Some("yyyyMMdd"))
    assert(f.extract(Seq("dt"), Seq("20240501")) === LocalDateTime.of(2024, 5, 1, 0, 0))
    assert(intercept[BadInputException](PartitionTimeExtractor(None, Some("yyyy-qq-{"))).getMessage.startsWith(
        "Invalid timestamp_formatter 'yyyy-qq-{'"))
  }
}
