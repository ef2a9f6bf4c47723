package lamina.format

import lamina.types._
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class SimpleStatsCodecTest extends AnyFunSuite {
  import GoldenRows._

  private val types = Seq(IntType(), VarCharType.string())
  private def row(values: Any*) = new GenericInternalRow(values.toArray)

  test("empty stats are arity-0 rows as pypaimon writes them") {
    val empty = all.find(_.name == "empty row").get
    assert(toHex(SimpleStatsCodec.Empty.minValues) === toHex(empty.serialized))
    assert(toHex(SimpleStatsCodec.Empty.maxValues) === toHex(empty.serialized))
    assert(SimpleStatsCodec.Empty.nullCounts.isEmpty)
    assert(SimpleStatsCodec.decode(SimpleStatsCodec.Empty, Seq.empty).minValues.numFields === 0)
  }

  test("min and max rows are pypaimon's serialized rows") {
    val g = all.find(_.name == "composite key").get
    val s = SimpleStatsCodec.encode(g.row, g.row, Array[java.lang.Long](0L, null, 3L), g.types)
    assert(toHex(s.minValues) === toHex(g.serialized))
    val d = SimpleStatsCodec.decode(s, g.types)
    assert(d.nullCounts.toSeq === Seq[java.lang.Long](0L, null, 3L))
    assert(d.maxValues.getUTF8String(1) === UTF8String.fromString("region-east-1"))
  }

  test("null counts may be absent") {
    val s = SimpleStatsCodec.encode(row(1, null), row(2, null), null, types)
    assert(SimpleStatsCodec.decode(s, types).nullCounts === null)
  }

  test("malformed stats name the broken part") {
    val good = SimpleStatsCodec.encode(row(1, UTF8String.fromString("a")), row(2, UTF8String.fromString("b")),
      Array[java.lang.Long](0L, 0L), types)
    val e = intercept[IllegalArgumentException](SimpleStatsCodec.decode(good.copy(nullCounts = Array(0L)), types))
    assert(e.getMessage === "Stats have 1 null counts for 2 columns")
    val e2 = intercept[MalformedRowException](
      SimpleStatsCodec.decode(good.copy(maxValues = good.maxValues.take(10)), types))
    assert(e2.getMessage ===
      "Malformed binary row at byte 10: expected at least 24 bytes for 2 fields, found 6 bytes (in stats max values)")
    val e3 = intercept[IllegalArgumentException](
      SimpleStatsCodec.decode(good.copy(nullCounts = Array[java.lang.Long](0L, -1L)), types))
    assert(e3.getMessage === "Stats null count of column 1 is negative: -1")
  }
}
