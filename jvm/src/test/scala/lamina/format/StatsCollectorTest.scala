package lamina.format

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types._

class StatsCollectorTest extends AnyFunSuite {
  private def u(s: String): UTF8String = UTF8String.fromString(s)

  private val atomic: Seq[DataType] = Seq(IntType(), BigIntType(), VarCharType.string(), DecimalType(10, 2), DateType(),
    BooleanType(), DoubleType(), VarBinaryType.bytes(), TimestampType(6))
  private val atomicRows: Seq[InternalRow] = Seq(
    InternalRow(5, 50L, u("pear"), Decimal(BigDecimal("1.50"), 10, 2), 100, true, 2.5, Array[Byte](2), 1000L),
    InternalRow(-3, null, u("apple"), Decimal(BigDecimal("-7.25"), 10, 2), 90, false, -1.0, Array[Byte](1, 9), 999L),
    InternalRow(null, 70L, null, null, null, null, null, null, null),
    InternalRow(9, -10L, u("zebra fish"), Decimal(BigDecimal("99.00"), 10, 2), 120, true, 0.0, Array[Byte](-1), 5000L))

  /** (min row, max row, null counts) of `rows` in `mode`, the rows decoded as the result's types. */
  private def collect(mode: String, types: Seq[DataType], rows: Seq[InternalRow]): Option[(InternalRow, InternalRow, Seq[Option[Long]])] = {
    val c = StatsCollector.forMode(mode, types)
    rows.foreach(c.update)
    val statTypes = types.map(t => if (StatsCollector.hasMinMax(SparkTypes.toSpark(t))) t else IntType())
    c.result().map { case (min, max, nulls) =>
      (BinaryRowCodec.deserialize(min, statTypes), BinaryRowCodec.deserialize(max, statTypes), nulls)
    }
  }

  private def values(row: InternalRow, types: Seq[DataType]): Seq[Any] = types.indices.map { i =>
    if (row.isNullAt(i)) null
    else row.get(i, SparkTypes.toSpark(types(i))) match {
      case b: Array[Byte] => b.toSeq
      case s: UTF8String => s.toString
      case d: Decimal => d.toJavaBigDecimal.toPlainString
      case other => other
    }
  }

  test("parseMode accepts the four modes, case and spaces aside") {
    assert(StatsCollector.parseMode("none") === StatsCollector.None)
    assert(StatsCollector.parseMode("Counts") === StatsCollector.Counts)
    assert(StatsCollector.parseMode(" FULL ") === StatsCollector.Full)
    assert(StatsCollector.parseMode("truncate(16)") === StatsCollector.Truncate(16))
    assert(StatsCollector.parseMode(" TRUNCATE( 8 ) ") === StatsCollector.Truncate(8))
  }

  test("parseMode rejects anything else with the option's message") {
    for (bad <- Seq("truncate(0)", "truncate(-1)", "truncate()", "truncate(x)", "truncate(3", "partial", "")) {
      val e = intercept[BadInputException](StatsCollector.parseMode(bad))
      assert(e.getMessage ===
        s"Invalid value '$bad' for option 'metadata.stats-mode': expected none, counts, full or truncate(N)", bad)
    }
  }

  test("none collects nothing") {
    assert(collect("none", atomic, atomicRows) === None)
  }

  test("counts: null counts only, min and max all null") {
    val Some((min, max, nulls)) = collect("counts", atomic, atomicRows)
    assert(values(min, atomic).forall(_ == null))
    assert(values(max, atomic).forall(_ == null))
    assert(nulls === Seq(1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L, 1L).map(Some(_)))
  }

  test("full: min, max and null counts of every atomic type") {
    val Some((min, max, nulls)) = collect("full", atomic, atomicRows)
    // binaries compare as unsigned bytes
    assert(values(min, atomic) === Seq(-3, -10L, "apple", "-7.25", 90, false, -1.0, Seq[Byte](1, 9), 999L))
    assert(values(max, atomic) === Seq(9, 70L, "zebra fish", "99.00", 120, true, 2.5, Seq[Byte](-1), 5000L))
    assert(nulls === Seq.fill(atomic.size)(Some(1L)))
  }

  test("a column that is always null has null min and max and a full null count") {
    val Some((min, max, nulls)) = collect("full", Seq(IntType(), VarCharType.string()),
      Seq(InternalRow(null, null), InternalRow(null, null)))
    assert(values(min, Seq(IntType(), IntType())) === Seq(null, null))
    assert(values(max, Seq(IntType(), IntType())) === Seq(null, null))
    assert(nulls === Seq(Some(2L), Some(2L)))
    val Some((_, _, none)) = collect("full", Seq(IntType()), Nil)
    assert(none === Seq(Some(0L)))
  }

  test("truncate(N): the min is cut, the max is cut and rounded up; short values and other types stay") {
    val types = Seq(VarCharType.string(), IntType(), VarCharType.string())
    val rows = Seq(InternalRow(u("apple"), 1234567, u("ab")), InternalRow(u("banana"), 7, u("abc")))
    val Some((min, max, _)) = collect("truncate(3)", types, rows)
    assert(values(min, types) === Seq("app", 7, "ab"))
    assert(values(max, types) === Seq("bao", 1234567, "abc"))
    val Some((fullMin, fullMax, _)) = collect("full", types, rows)
    assert(values(fullMin, types) === Seq("apple", 7, "ab"))
    assert(values(fullMax, types) === Seq("banana", 1234567, "abc"))
  }

  test("truncate counts code points, not bytes or UTF-16 units") {
    val types = Seq(VarCharType.string())
    val Some((min, max, _)) = collect("truncate(2)", types, Seq(InternalRow(u("\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00")), InternalRow(u("é€ü"))))
    assert(values(min, types) === Seq("é€"))
    assert(values(max, types) === Seq("\uD83D\uDE00\uD83D\uDE01"))
  }

  test("truncate rounds past the largest code point and the surrogate range, or drops the max") {
    val types = Seq(VarCharType.string())
    val top = new String(Character.toChars(Character.MAX_CODE_POINT))
    def maxOf(mode: String, s: String): Any = values(collect(mode, types, Seq(InternalRow(u(s)))).get._2, types).head
    assert(maxOf("truncate(3)", "ab" + top) === "ab" + top)
    assert(maxOf("truncate(2)", "ab" + top) === "ac")
    assert(maxOf("truncate(2)", "a" + top + "zz") === "b")
    assert(maxOf("truncate(1)", "\uD7FFzz") === "\uE000")
    assert(maxOf("truncate(2)", top + top + "x") === null)
    assert(values(collect("truncate(2)", types, Seq(InternalRow(u(top + top + "x")))).get._1, types).head === top + top)
  }

  test("truncated stats still bound every value (seeded random strings)") {
    val rnd = new Random(31337L)
    val alphabet = Seq("a", "b", "z", "é", "€", "\uD7FF", "\uE000", "\uD83D\uDE00", new String(Character.toChars(Character.MAX_CODE_POINT)))
    val types = Seq(VarCharType.string())
    for (round <- 0 until 300) {
      val strings = Seq.fill(1 + rnd.nextInt(5))(Seq.fill(rnd.nextInt(7))(alphabet(rnd.nextInt(alphabet.size))).mkString)
      val n = 1 + rnd.nextInt(4)
      val Some((min, max, _)) = collect(s"truncate($n)", types, strings.map(s => InternalRow(u(s))))
      val lo = min.getUTF8String(0)
      assert(strings.forall(s => lo.binaryCompare(u(s)) <= 0), s"round $round: min $lo of $strings")
      assert(lo.numChars() <= n)
      assert(strings.map(u).minBy(identity)(Ordering.fromLessThan((a, b) => a.binaryCompare(b) < 0)).toString.startsWith(lo.toString))
      if (!max.isNullAt(0)) {
        val hi = max.getUTF8String(0)
        assert(strings.forall(s => hi.binaryCompare(u(s)) >= 0), s"round $round: max $hi of $strings")
        assert(hi.numChars() <= n)
      } else {
        assert(strings.exists(s => s.codePointCount(0, s.length) > n), s"round $round: max dropped for $strings")
      }
    }
  }

  test("nested columns get only null counts, even in full mode") {
    val types = Seq(IntType(), RowType(Seq(DataField(1, "x", IntType()))), ArrayType(IntType()), MapType(IntType(), IntType()))
    val rows = Seq(
      InternalRow(1, InternalRow(5), new GenericArrayData(Array[Any](1, 2)), null),
      InternalRow(2, null, null, null),
      InternalRow(3, InternalRow(9), new GenericArrayData(Array[Any]()), ArrayBasedMapData(Map(1 -> 2))))
    for (mode <- Seq("full", "truncate(4)")) {
      val Some((min, max, nulls)) = collect(mode, types, rows)
      val asInt = Seq.fill(4)(IntType())
      assert(values(min, asInt) === Seq(1, null, null, null))
      assert(values(max, asInt) === Seq(3, null, null, null))
      assert(nulls === Seq(Some(0L), Some(1L), Some(1L), Some(2L)))
    }
  }

  test("ordinals pick the stats columns out of a wider row") {
    val c = StatsCollector(Seq(VarCharType.string(), IntType()), Array(2, 0))
    c.update(InternalRow(4, "ignored", u("m")))
    c.update(InternalRow(8, "ignored", u("c")))
    c.update(InternalRow(null, "ignored", u("x")))
    val (min, max, nulls) = c.result().get
    val types = Seq(VarCharType.string(), IntType())
    assert(values(BinaryRowCodec.deserialize(min, types), types) === Seq("c", 4))
    assert(values(BinaryRowCodec.deserialize(max, types), types) === Seq("x", 8))
    assert(nulls === Seq(Some(0L), Some(1L)))
  }

  test("values are copied: a reused row buffer does not change collected stats") {
    val buf = "mmmm".getBytes("UTF-8")
    val bin = Array[Byte](5, 5)
    val row = new GenericInternalRow(Array[Any](UTF8String.fromBytes(buf), bin))
    val types = Seq(VarCharType.string(), VarBinaryType.bytes())
    val c = StatsCollector.forMode("full", types)
    c.update(row)
    java.util.Arrays.fill(buf, 'a'.toByte)
    java.util.Arrays.fill(bin, 9.toByte)
    c.update(InternalRow(u("kkkk"), Array[Byte](6)))
    val (min, max, _) = c.result().get
    assert(values(BinaryRowCodec.deserialize(min, types), types) === Seq("kkkk", Seq[Byte](5, 5)))
    assert(values(BinaryRowCodec.deserialize(max, types), types) === Seq("mmmm", Seq[Byte](6)))
  }
}
