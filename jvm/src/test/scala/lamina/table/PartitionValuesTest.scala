package lamina.table

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.types.{DateType, IntType, LocalZonedTimestampType, TimestampType}

class PartitionValuesTest extends AnyFunSuite {
  private val micros = 1704112200000000L // 2024-01-01 12:30:00 UTC

  test("legacy names are the internal value's text, as Paimon's writers name directories") {
    val row = InternalRow(19723, micros, micros + 5123000L, -500000L, 7)
    assert(PartitionValues.toLegacyPathString(row, 0, DateType()) === "19723")
    assert(PartitionValues.toLegacyPathString(row, 1, TimestampType()) === "2024-01-01T12:30")
    assert(PartitionValues.toLegacyPathString(row, 2, LocalZonedTimestampType()) === "2024-01-01T12:30:05.123")
    assert(PartitionValues.toLegacyPathString(row, 3, TimestampType()) === "1969-12-31T23:59:59.500")
    assert(PartitionValues.toLegacyPathString(row, 4, IntType()) === "7")
  }

  test("SQL names are the values' SQL text") {
    val row = InternalRow(19723, micros)
    assert(PartitionValues.toPathString(row, 0, DateType()) === "2024-01-01")
    assert(PartitionValues.toPathString(row, 1, TimestampType()) === "2024-01-01 12:30:00")
  }

  test("directory names without legacy-name carry a TIMESTAMP's precision") {
    val row = InternalRow(19723, micros + 500000L)
    assert(PartitionValues.toDirectoryText(row, 0, DateType(), legacy = false) === "2024-01-01")
    assert(PartitionValues.toDirectoryText(row, 1, TimestampType(6), legacy = false) === "2024-01-01 12:30:00.500000")
    assert(PartitionValues.toDirectoryText(row, 1, TimestampType(3), legacy = false) === "2024-01-01 12:30:00.500")
    assert(PartitionValues.toDirectoryText(row, 1, TimestampType(0), legacy = false) === "2024-01-01 12:30:00")
    assert(PartitionValues.toDirectoryText(row, 1, TimestampType(6), legacy = true) === "2024-01-01T12:30:00.500")
  }

  test("NULL stays NULL either way") {
    val row = InternalRow(null)
    assert(PartitionValues.toLegacyPathString(row, 0, DateType()) === null)
    assert(PartitionValues.toPathString(row, 0, DateType()) === null)
  }
}
