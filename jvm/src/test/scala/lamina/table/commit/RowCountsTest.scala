package lamina.table.commit

import org.scalatest.funsuite.AnyFunSuite

/** [[RowCounts]] in a snapshot's properties: the known counts round-trip, unknown ones are absent, and
 *  a value that is not a count (a foreign writer's, a damaged file's) reads as unknown, never as a number. */
class RowCountsTest extends AnyFunSuite {
  test("known counts round-trip through the properties, unknown ones are absent") {
    val counts = RowCounts(inserted = Some(3), deleted = Some(0), upserted = Some(1L << 40))
    assert(counts.properties == Map("lamina.rows.inserted" -> "3", "lamina.rows.deleted" -> "0",
      "lamina.rows.upserted" -> "1099511627776"))
    assert(RowCounts.of(counts.properties ++ Map("lamina.operation" -> "WRITE")) == counts)
    assert(RowCounts.Unknown.properties.isEmpty && RowCounts.Unknown.isEmpty && !counts.isEmpty)
  }

  test("a value that is not a count reads as unknown") {
    val read = RowCounts.of(Map("lamina.rows.inserted" -> "x", "lamina.rows.updated" -> "-1",
        "lamina.rows.deleted" -> "", "lamina.rows.upserted" -> "7"))
    assert(read == RowCounts(upserted = Some(7)))
  }
}
