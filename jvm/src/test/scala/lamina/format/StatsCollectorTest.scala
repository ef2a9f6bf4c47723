package lamina.format

import lamina.types._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class StatsCollectorTest extends AnyFunSuite {
  private def u(s: String) = UTF8String.fromString(s)
  private def row(values: Any*): InternalRow = new GenericInternalRow(values.toArray)

  test("truncateMin keeps the first code points") {
    assert(StatsCollector.truncateMin(u("abcdef"), 3) === u("abc"))
    assert(StatsCollector.truncateMin(u("ab"), 3) === u("ab"))
    assert(StatsCollector.truncateMin(u("ééééé"), 2) === u("éé"))
  }

  test("truncateMax increments the last incrementable code point of the prefix") {
    assert(StatsCollector.truncateMax(u("ab"), 16) === Some(u("ab")))
    assert(StatsCollector.truncateMax(u("a" * 16), 16) === Some(u("a" * 16)))
    assert(StatsCollector.truncateMax(u("a" * 17 + "z"), 16) === Some(u("a" * 15 + "b")))
    assert(StatsCollector.truncateMax(u("é" * 20), 3) === Some(u("ééê")))
    val top = new String(Character.toChars(Character.MAX_CODE_POINT))
    assert(StatsCollector.truncateMax(u("a" + top * 19), 16) === Some(u("b")))
    assert(StatsCollector.truncateMax(u(top * 20), 16) === None)
  }

  test("default mode: exact bounds of every atomic type, strings truncated to 16, binaries unbounded") {
    val types = Seq(IntType(), VarCharType.string(), DoubleType(), DecimalType(20, 2), TimestampType(6),
      VarBinaryType.bytes(), BooleanType())
    val c = new StatsCollector(types, types.indices.toArray)
    c.update(row(5, u("z" * 20), 1.5, Decimal(BigDecimal("1.00"), 20, 2), 10L, Array[Byte](1), true))
    c.update(row(-3, u("é"), -0.0, Decimal(BigDecimal("-7.25"), 20, 2), -10L, Array[Byte](2), false))
    c.update(row(null, null, 0.0, null, null, null, null))
    c.update(row(9, u("a" * 30), Double.NaN, Decimal(BigDecimal("3.10"), 20, 2), 0L, null, true))
    val r = c.result()
    assert(c.rowCount === 4)
    assert(r.nullCounts.toSeq === Seq[java.lang.Long](1L, 1L, 0L, 1L, 1L, 2L, 1L))
    assert(r.minValues.getInt(0) === -3 && r.maxValues.getInt(0) === 9)
    // UTF-8 bytes unsigned: "é" (0xc3 0xa9) sorts after every ASCII string.
    assert(r.minValues.getUTF8String(1) === u("a" * 16))
    assert(r.maxValues.getUTF8String(1) === u("é"))
    assert(java.lang.Double.compare(r.minValues.getDouble(2), -0.0) === 0)
    assert(r.maxValues.getDouble(2).isNaN)
    assert(r.minValues.getDecimal(3, 20, 2) === Decimal(BigDecimal("-7.25")))
    assert(r.maxValues.getDecimal(3, 20, 2) === Decimal(BigDecimal("3.10")))
    assert(r.minValues.getLong(4) === -10L && r.maxValues.getLong(4) === 10L)
    assert(r.minValues.isNullAt(5) && r.maxValues.isNullAt(5))
    assert(!r.minValues.getBoolean(6) && r.maxValues.getBoolean(6))
  }

  test("a string max that cannot be incremented drops both bounds") {
    val top = new String(Character.toChars(Character.MAX_CODE_POINT))
    val c = new StatsCollector(Seq(VarCharType.string()), Array(0))
    c.update(row(u("a")))
    c.update(row(u(top * 17)))
    val r = c.result()
    assert(r.minValues.isNullAt(0) && r.maxValues.isNullAt(0))
    assert(r.nullCounts.toSeq === Seq[java.lang.Long](0L))
  }

  test("modes none, counts, full and truncate(n) per column") {
    val types = Seq.fill(4)(VarCharType.string())
    val modes = Seq(StatsMode.NoStats, StatsMode.Counts, StatsMode.Full, StatsMode.Truncate(2))
    val c = new StatsCollector(types, Array(0, 0, 0, 0), modes)
    c.update(row(u("hello")))
    c.update(row(null))
    c.update(row(u("abc")))
    val r = c.result()
    assert(r.nullCounts.toSeq === Seq[java.lang.Long](null, 1L, 1L, 1L))
    assert(r.minValues.isNullAt(0) && r.minValues.isNullAt(1))
    assert(r.minValues.getUTF8String(2) === u("abc") && r.maxValues.getUTF8String(2) === u("hello"))
    assert(r.minValues.getUTF8String(3) === u("ab") && r.maxValues.getUTF8String(3) === u("hf"))
  }

  test("stats-mode option values") {
    assert(StatsMode.parse("none") === StatsMode.NoStats)
    assert(StatsMode.parse("COUNTS") === StatsMode.Counts)
    assert(StatsMode.parse("full") === StatsMode.Full)
    assert(StatsMode.parse("truncate(16)") === StatsMode.Truncate(16))
    val e = intercept[lamina.errors.BadInputException](StatsMode.parse("truncate(0)"))
    assert(e.getMessage === "Invalid stats mode 'truncate(0)': expected none, counts, full or truncate(n) with n > 0")
  }

  test("values from reused UnsafeRow buffers are copied") {
    val types = Seq(VarCharType.string(), DecimalType(30, 0))
    val proj = UnsafeProjection.create(types.map(SparkTypes.toSpark).toArray)
    val c = new StatsCollector(types, Array(0, 1), Seq(StatsMode.Full, StatsMode.Full))
    for (s <- Seq("mmmmmmmmmmmm", "zzzzzzzzzzzz", "aaaaaaaaaaaa", "qqqqqqqqqqqq"))
      c.update(proj(row(u(s), Decimal(BigDecimal(s.length * s.head.toInt), 30, 0))))
    val r = c.result()
    assert(r.minValues.getUTF8String(0) === u("aaaaaaaaaaaa"))
    assert(r.maxValues.getUTF8String(0) === u("zzzzzzzzzzzz"))
    assert(r.maxValues.getDecimal(1, 30, 0) === Decimal(12 * 'z'.toInt))
  }

  test("serialized stats round trip through SimpleStatsCodec") {
    val types = Seq(IntType(), VarCharType.string(), ArrayType(IntType()))
    val c = new StatsCollector(types, Array(0, 1, 2))
    c.update(row(1, u("a long string value over 16"), null))
    c.update(row(null, u("b"), null))
    val s = c.resultSerialized()
    val d = SimpleStatsCodec.decode(s, types)
    assert(d.minValues.getInt(0) === 1 && d.maxValues.getInt(0) === 1)
    assert(d.minValues.getUTF8String(1) === u("a long string va"))
    assert(d.maxValues.getUTF8String(1) === u("b"))
    assert(d.minValues.isNullAt(2) && d.maxValues.isNullAt(2))
    assert(d.nullCounts.toSeq === Seq[java.lang.Long](1L, 0L, 2L))
    assert(SimpleStatsCodec.encode(d.minValues, d.maxValues, d.nullCounts, types) === s)
  }

  test("string bounds over random strings with shared prefixes agree with a full sort") {
    val rnd = new scala.util.Random(31)
    val alphabet = Seq("a", "b", "\u0000", "\u007f", "é", "\uffff", "😀")
    val stems = Seq("", "a", "abcdefgh", "abcdefghij", "é" * 4, "zzzzzzzz")
    for (round <- 0 until 20) {
      val c = new StatsCollector(Seq(VarCharType.string()), Array(0), Seq(StatsMode.Full))
      val values =
        Seq.fill(200)(stems(rnd.nextInt(stems.size)) + Seq.fill(rnd.nextInt(4))(alphabet(rnd.nextInt(alphabet.size))).mkString)
      values.foreach(v => c.update(row(u(v))))
      val sorted = values.map(u).sortWith((a, b) => a.binaryCompare(b) < 0)
      val r = c.result()
      assert(r.minValues.getUTF8String(0) === sorted.head, s"round $round")
      assert(r.maxValues.getUTF8String(0) === sorted.last, s"round $round")
    }
  }

  test("columns not read per row take the stats absorbed for them, with the column's mode applied") {
    val types = Seq(BigIntType(), VarCharType.string(), SmallIntType(), IntType(), DoubleType())
    val c = new StatsCollector(types, types.indices.toArray, Seq.fill(types.size)(StatsMode.Default),
      Array(false, false, false, false, true))
    // rows only feed the per-row column: what they hold elsewhere is never read
    c.update(row(null, null, null, null, 2.5))
    c.update(row(null, null, null, null, null))
    c.absorb(0, -4L, 9L, 1L)
    c.absorb(1, u("apple"), u("z" * 20), 0L)
    c.absorb(2, 3.toShort, 7.toShort, 2L)
    c.absorb(3, null, null, null) // unknown
    val r = c.result()
    assert(r.nullCounts.toSeq === Seq[java.lang.Long](1L, 0L, 2L, null, 1L))
    assert(r.minValues.getLong(0) === -4L && r.maxValues.getLong(0) === 9L)
    assert(r.minValues.getUTF8String(1) === u("apple") && r.maxValues.getUTF8String(1) === u("z" * 15 + "{"))
    assert(r.minValues.getShort(2) === 3.toShort && r.maxValues.getShort(2) === 7.toShort)
    assert(r.minValues.isNullAt(3) && r.maxValues.isNullAt(3))
    assert(r.minValues.getDouble(4) === 2.5 && r.maxValues.getDouble(4) === 2.5)
    intercept[IllegalArgumentException](c.absorb(4, 1.0, 2.0, 0L))
  }
}
