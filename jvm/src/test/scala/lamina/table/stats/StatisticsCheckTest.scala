package lamina.table.stats

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables

/** [[StatisticsCheck]]: statistics that break the rules a sound file keeps are a corrupt file. */
class StatisticsCheckTest extends AnyFunSuite {
  private val schema = TestTables.eventsSchema() // id INT (0), v STRING (1), p STRING (2)
  private val id = ColStats(0, Some(10), Some("-5"), Some("200"), Some(0), Some(4), Some(4))
  private val good = Statistics(3, 0, Some(10), Some(400),
    Map("id" -> id,
      "v" -> ColStats(1, Some(2), None, None, Some(1),
        Some(2), Some(4))))

  private def refused(s: Statistics, naming: Long = 3): String =
    intercept[CorruptFileException](StatisticsCheck.check(s, naming, schema, "/t/statistics/stat-x-0")).getMessage

  test("sound statistics pass unchanged") {
    assert(StatisticsCheck.check(good, 3, schema, "/t/statistics/stat-x-0") eq good)
  }

  test("each broken rule is reported naming the file, the rule and the value") {
    val p = "Corrupt file /t/statistics/stat-x-0: expected "
    assert(refused(good, naming = 2) === p + "statistics of snapshot 2 or earlier, found snapshotId 3")
    assert(refused(good.copy(mergedRecordCount = Some(-1))) === p + "mergedRecordCount >= 0, found -1")
    assert(refused(good.copy(colStats = Map("idd" -> id))) === p + "colStats of columns of schema 0, found column 'idd'")
    assert(refused(good.copy(colStats = Map("id" -> id.copy(colId = 1)))) === p + "colStats.id.colId 0, found 1")
    assert(refused(good.copy(colStats = Map("id" -> id.copy(nullCount = Some(11))))) ===
      p + "colStats.id.nullCount <= mergedRecordCount 10, found 11")
    assert(
      refused(good.copy(colStats = Map("id" -> id.copy(avgLen = Some(5))))) === p + "colStats.id.avgLen <= maxLen 4, found 5")
    assert(refused(good.copy(colStats = Map("id" -> id.copy(min = Some("2\u00000"))))) ===
      p + "colStats.id.min of type INT, found 2\u00000")
    assert(refused(good.copy(colStats = Map("id" -> id.copy(min = Some("300"))))) === p + "colStats.id.min <= max 200, found 300")
  }
}
