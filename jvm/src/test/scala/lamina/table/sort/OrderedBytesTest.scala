package lamina.table.sort

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.format.PaimonOrdering
import lamina.types._

class OrderedBytesTest extends AnyFunSuite {
  private val rnd = new Random(42)

  private def exact(t: DataType, v: Any): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream()
    OrderedBytes.exact(new GenericInternalRow(Array[Any](v)), 0, t, out)
    out.toByteArray
  }
  private def fixed(t: DataType, v: Any, width: Int = 8): Array[Byte] =
    OrderedBytes.fixed(new GenericInternalRow(Array[Any](v)), 0, t, width)
  private def cmp(a: Array[Byte], b: Array[Byte]): Int = Integer.signum(OrderedBytes.Unsigned.compare(a, b))

  private val samples: Seq[(DataType, () => Any)] = Seq(
    BooleanType() -> (() => rnd.nextBoolean()),
    TinyIntType() -> (() => rnd.nextInt().toByte),
    SmallIntType() -> (() => rnd.nextInt().toShort),
    IntType() -> (() => if (rnd.nextBoolean()) rnd.nextInt() else rnd.nextInt(7) - 3),
    BigIntType() -> (() => if (rnd.nextBoolean()) rnd.nextLong() else rnd.nextLong() % 5),
    DateType() -> (() => rnd.nextInt(40000) - 20000),
    TimestampType() -> (() => rnd.nextLong()),
    FloatType() -> (() =>
      Seq(Float.NaN, -0.0f, 0.0f, Float.NegativeInfinity, Float.PositiveInfinity,
        rnd.nextFloat() * 100 - 50)(rnd.nextInt(6))),
    DoubleType() -> (() =>
      Seq(Double.NaN, -0.0, 0.0, Double.MinPositiveValue, -Double.MaxValue,
        rnd.nextGaussian() * 1e6)(rnd.nextInt(6))),
    DecimalType(10, 2) -> (() => Decimal(BigDecimal(rnd.nextLong() % 10000000000L, 2), 10, 2)),
    DecimalType(38, 4) -> (() => Decimal(BigDecimal(BigInt(120, rnd) * (if (rnd.nextBoolean()) 1 else -1), 4), 38, 4)),
    VarCharType.string() -> (() =>
      UTF8String.fromString(Seq.fill(rnd.nextInt(4))(Seq("a", "b", "\u0000", "é")(rnd.nextInt(4))).mkString)),
    VarBinaryType(100) -> (() => Array.fill(rnd.nextInt(4))(Seq(0, 1, 127, -128, -1)(rnd.nextInt(5)).toByte)))

  test("exact bytes compare as Paimon's natural order of the values, for every atomic type") {
    for ((t, gen) <- samples; _ <- 0 until 2000) {
      val a = gen(); val b = gen()
      assert(cmp(exact(t, a), exact(t, b)) === Integer.signum(PaimonOrdering.compare(t, a, b)), s"$t: $a vs $b")
    }
  }

  test("fixed bytes keep the order, possibly with ties (strings cut at the width)") {
    for ((t, gen) <- samples; _ <- 0 until 2000) {
      val a = gen(); val b = gen()
      val expected = Integer.signum(PaimonOrdering.compare(t, a, b))
      val got = cmp(fixed(t, a), fixed(t, b))
      assert(got == expected || got == 0, s"$t: $a vs $b")
      if (!t.isInstanceOf[VarCharType] && !t.isInstanceOf[VarBinaryType] && !t.isInstanceOf[DecimalType] ||
        t == DecimalType(10, 2)) assert(got === expected, s"$t: $a vs $b")
    }
  }

  test("NULL sorts first, in both forms") {
    val nul: InternalRow = new GenericInternalRow(Array[Any](null))
    val out = new java.io.ByteArrayOutputStream()
    OrderedBytes.exact(nul, 0, IntType(), out)
    assert(out.toByteArray.toSeq === Seq[Byte](0))
    assert(cmp(out.toByteArray, exact(IntType(), Int.MinValue)) === -1)
    assert(OrderedBytes.fixed(nul, 0, VarCharType.string(), 4).toSeq === Seq[Byte](0, 0, 0, 0))
  }

  test("a string sorts before its extensions, also one by a zero byte") {
    val s = VarCharType.string()
    val ab = exact(s, UTF8String.fromString("ab"))
    assert(cmp(ab, exact(s, UTF8String.fromString("ab\u0000"))) === -1)
    assert(cmp(exact(s, UTF8String.fromString("ab\u0000")), exact(s, UTF8String.fromString("ab\u0001"))) === -1)
    assert(OrderedBytes.exactOf(UTF8String.fromString("a\u0000")).toSeq === Seq[Byte]('a', 0, -1, 0, 0))
  }

  test("fixed forms: 8 big-endian bytes with the sign bit flipped; strings padded to the width") {
    assert(fixed(IntType(), -1).toSeq === Seq[Byte](0x7f, -1, -1, -1, -1, -1, -1, -1))
    assert(fixed(IntType(), 0).toSeq === Seq[Byte](-128, 0, 0, 0, 0, 0, 0, 0))
    assert(fixed(VarCharType.string(), UTF8String.fromString("abc"), 4).toSeq === Seq[Byte]('a', 'b', 'c', 0))
    assert(fixed(VarCharType.string(), UTF8String.fromString("abcdef"), 4).toSeq === Seq[Byte]('a', 'b', 'c', 'd'))
    assert(OrderedBytes.coordinate(new GenericInternalRow(Array[Any](5L)), 0, BigIntType()) === (5L ^ Long.MinValue))
  }

  test("nested and variant types have no order") {
    assert(!OrderedBytes.supports(ArrayType(IntType())))
    assert(!OrderedBytes.supports(VariantType()))
    assert(OrderedBytes.supports(TimestampType()))
  }
}
