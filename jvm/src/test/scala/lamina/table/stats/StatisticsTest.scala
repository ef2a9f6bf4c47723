package lamina.table.stats

import org.apache.spark.sql.types.Decimal
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables
import lamina.types.{BigIntType, DateType, DecimalType, DoubleType, IntType, LocalZonedTimestampType, TimestampType, VarCharType}

class StatisticsTest extends AnyFunSuite {
  private val stats = Statistics(2, 0, Some(4L), Some(2818L),
    Map(
      "id" -> ColStats(0, Some(4L), Some("1"), Some("4"), Some(0L), Some(8L), Some(8L)),
      "name" -> ColStats(1, Some(3L), None, None, Some(1L), Some(4L), Some(5L))))

  test("written exactly as the golden file (Paimon's field names and order), and read back") {
    val golden = TestTables.readResource("/golden/statistics/stat-golden-0")
    assert(stats.toJson.trim === golden.trim)
    assert(Statistics.fromJson(golden, "stat-golden-0") === stats)
  }

  test("optional fields may be absent; colStats may be missing or null") {
    val bare = Statistics(5, 1, None, None, Map.empty)
    assert(Statistics.fromJson(bare.toJson, "mem") === bare)
    assert(Statistics.fromJson("""{"snapshotId": 5, "schemaId": 1, "colStats": null}""", "mem") === bare)
    assert(Statistics.fromJson("""{"snapshotId": 5, "schemaId": 1}""", "mem") === bare)
  }

  test("colstat text as Paimon's ColStats prints it, columns in field order") {
    assert(stats.colStatsText === "{id=ColStats{colId=0, distinctCount=4, min=1, max=4, nullCount=0, avgLen=8, " +
      "maxLen=8}, name=ColStats{colId=1, distinctCount=3, min=null, max=null, nullCount=1, avgLen=4, maxLen=5}}")
  }

  test("damage is corruption naming the file and what was expected") {
    val cases = Seq(
      "not json" -> "statistics JSON",
      """{"schemaId": 0}""" -> "snapshotId",
      """{"snapshotId": "x", "schemaId": 0}""" -> "snapshotId",
      """{"snapshotId": 1, "schemaId": 0, "colStats": []}""" -> "field 'colStats' to be an object",
      """{"snapshotId": 1, "schemaId": 0, "colStats": {"a": 1}}""" -> "colStats.a to be an object",
      """{"snapshotId": 1, "schemaId": 0, "colStats": {"a": {"distinctCount": 1}}}""" -> "colId",
      """{"snapshotId": 1, "schemaId": 0, "colStats": {"a": {"colId": 1, "nulCount": 1}}}""" -> "nulCount")
    for ((json, expected) <- cases) {
      val e = intercept[CorruptFileException](Statistics.fromJson(json, "/t/statistics/stat-x-0"))
      assert(e.getMessage.contains("/t/statistics/stat-x-0"), json)
      assert(e.getMessage.contains(expected), s"$json: ${e.getMessage}")
    }
  }

  test("values print as Paimon's serializers print them") {
    assert(StatsValues.print(IntType(), 42) === "42")
    assert(StatsValues.print(BigIntType(), -7L) === "-7")
    assert(StatsValues.print(DoubleType(), 1.5) === "1.5")
    assert(StatsValues.print(DecimalType(10, 2), Decimal(BigDecimal("1E+1"), 10, 2)) === "10.00")
    assert(StatsValues.print(DateType(), 19844) === "19844")
    val micros = 1714559400500000L // 2024-05-01 10:30:00.5
    assert(StatsValues.print(TimestampType(6), micros) === "2024-05-01 10:30:00.500000")
    assert(StatsValues.print(TimestampType(3), micros) === "2024-05-01 10:30:00.500")
    assert(StatsValues.print(TimestampType(0), micros) === "2024-05-01 10:30:00.5")
    assert(StatsValues.print(TimestampType(0), 1714559400000000L) === "2024-05-01 10:30:00")
    assert(StatsValues.print(LocalZonedTimestampType(6), -1L) === "1969-12-31 23:59:59.999999")
    assert(StatsValues.hasMinMax(DateType()) && !StatsValues.hasMinMax(VarCharType.string()))
  }
}
