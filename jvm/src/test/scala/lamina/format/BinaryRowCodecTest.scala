package lamina.format

import java.nio.{ByteBuffer, ByteOrder}

import lamina.types._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import scala.util.Random

/** Round trips of random rows and the corruption suite: bad bytes raise MalformedRowException, never
 *  another exception and never a wrong row where the damage is detectable. */
class BinaryRowCodecTest extends AnyFunSuite {
  import GoldenRows._

  private val types: IndexedSeq[DataType] = IndexedSeq(
    BooleanType(), TinyIntType(), SmallIntType(), IntType(), BigIntType(), FloatType(), DoubleType(),
    DecimalType(9, 3), DecimalType(18, 18), DecimalType(19, 0), DecimalType(38, 6), CharType(4), VarCharType(30),
    VarCharType.string(), BinaryType(6), VarBinaryType.bytes(), DateType(), TimestampType(0), TimestampType(3),
    TimestampType(6), TimestampType(9), LocalZonedTimestampType(3), LocalZonedTimestampType(6))

  private def randomValue(r: Random, t: DataType): Any = t match {
    case _: BooleanType => r.nextBoolean()
    case _: TinyIntType => r.nextInt().toByte
    case _: SmallIntType => r.nextInt().toShort
    case _: IntType | _: DateType => r.nextInt()
    case _: BigIntType => r.nextLong()
    case _: FloatType => r.nextFloat() * 1e6f - 5e5f
    case _: DoubleType => r.nextGaussian() * 1e12
    case d: DecimalType =>
      val digits = (1 to d.precision).map(_ => ('0' + r.nextInt(10)).toChar).mkString
      val bd = new java.math.BigDecimal(new java.math.BigInteger(digits), d.scale)
      Decimal(if (r.nextBoolean()) bd.negate() else bd, d.precision, d.scale)
    case _: CharType | _: VarCharType =>
      val n = r.nextInt(20)
      UTF8String.fromString((1 to n).map(_ => if (r.nextInt(5) == 0) '\u00e9' else ('a' + r.nextInt(26)).toChar).mkString)
    case _: BinaryType | _: VarBinaryType => Array.fill(r.nextInt(20))(r.nextInt().toByte)
    case TimestampType(p, _) => timestamp(r, p)
    case LocalZonedTimestampType(p, _) => timestamp(r, p)
    case other => throw new IllegalArgumentException(other.toString)
  }

  /** Micros representable at the precision: compact timestamps hold whole milliseconds only. */
  private def timestamp(r: Random, precision: Int): Long = {
    val micros = r.nextLong() % 8000000000000000L
    if (precision <= 3) Math.floorDiv(micros, 1000L) * 1000L else micros
  }

  private def assertSameRow(actual: InternalRow, expected: Array[Any]): Unit = {
    assert(actual.numFields === expected.length)
    for (i <- expected.indices) {
      val a = if (actual.isNullAt(i)) null else actual.get(i, null)
      assert(sameValue(a, expected(i)), s"field $i (${types(i % types.size)}): $a != ${expected(i)}")
    }
  }

  test("random rows of every atomic type round trip") {
    val r = new Random(42)
    for (_ <- 1 to 500) {
      val values = types.map(t => if (r.nextInt(6) == 0) null else randomValue(r, t)).toArray[Any]
      val row = new GenericInternalRow(values)
      val raw = BinaryRowCodec.encode(row, types)
      assert(raw.length % 8 === 0)
      assertSameRow(BinaryRowCodec.decode(raw, 0, raw.length, types), values)
      assertSameRow(BinaryRowCodec.deserialize(BinaryRowCodec.serialize(row, types), types), values)
      val padded = Array.fill[Byte](3)(7) ++ raw ++ Array.fill[Byte](5)(9)
      assertSameRow(BinaryRowCodec.decode(padded, 3, raw.length, types), values)
    }
  }

  test("encode reads only the projected ordinals") {
    val row = new GenericInternalRow(Array[Any](UTF8String.fromString("skip"), 5, null, UTF8String.fromString("k")))
    val projected = BinaryRowCodec.encode(row, Array(3, 1), Seq(VarCharType.string(), IntType()))
    val direct = BinaryRowCodec.encode(new GenericInternalRow(Array[Any](UTF8String.fromString("k"), 5)),
      Seq(VarCharType.string(), IntType()))
    assert(toHex(projected) === toHex(direct))
    assert(Bucket.bucketOf(row, Array(3, 1), Seq(VarCharType.string(), IntType()), 10) ===
      Bucket.bucketOfHash(BinaryRowCodec.hash(direct), 10))
  }

  test("decimals are rescaled to the declared scale, and values that do not fit are rejected") {
    val t = Seq(DecimalType(10, 2))
    val raw = BinaryRowCodec.encode(new GenericInternalRow(Array[Any](Decimal(BigDecimal("1.5")))), t)
    assert(BinaryRowCodec.decode(raw, 0, raw.length, t).getDecimal(0, 10, 2) === Decimal(BigDecimal("1.50"), 10, 2))
    val e = intercept[IllegalArgumentException](
      BinaryRowCodec.encode(new GenericInternalRow(Array[Any](Decimal(BigDecimal("123456789012")))), t))
    assert(e.getMessage === "Decimal value 123456789012 at field 0 does not fit DECIMAL(10, 2)")
  }

  test("nested types are rejected with a clear message") {
    val e = intercept[UnsupportedOperationException](
      BinaryRowCodec.decode(new Array[Byte](16), 0, 16, Seq(ArrayType(IntType()))))
    assert(e.getMessage ===
      "Type ARRAY<INT> is not supported in binary rows (partition, key and stats rows hold atomic types only)")
  }

  // ------------------------------------------------------------------------------------ corruption

  test("every truncation of every golden row fails clearly or still decodes to the same row") {
    for (g <- all; cut <- 0 until g.serialized.length) {
      val bytes = g.serialized.take(cut)
      try {
        val row = BinaryRowCodec.deserialize(bytes, g.types)
        // Only the zero padding after the last variable-length value can go unnoticed.
        assert(cut >= 4 + BinaryRowCodec.fixedPartSize(g.types.size), g.name)
        for (i <- g.types.indices) {
          val a = if (row.isNullAt(i)) null else row.get(i, null)
          assert(sameValue(a, g.values(i)), s"${g.name} cut at $cut, field $i")
        }
      } catch {
        case _: MalformedRowException =>
      }
    }
  }

  test("every single-byte flip fails with MalformedRowException or decodes, never another exception") {
    val r = new Random(7)
    for (g <- all if g.types.nonEmpty; pos <- g.serialized.indices) {
      val bytes = g.serialized.clone()
      bytes(pos) = (bytes(pos) ^ (1 << r.nextInt(8))).toByte
      try BinaryRowCodec.deserialize(bytes, g.types)
      catch { case _: MalformedRowException => }
    }
  }

  private def golden(name: String): GoldenRow = all.find(_.name == name).get

  private def slotOf(g: GoldenRow, field: Int): Int = 4 + BinaryRowCodec.nullBitsSizeInBytes(g.types.size) + 8 * field

  private def le(bytes: Array[Byte]) = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)

  test("arity prefix must match the types") {
    val g = golden("integers")
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(g.serialized, g.types.take(4)))
    assert(e.getMessage === "Malformed binary row at byte 0: expected arity 4, found arity 5")
    val e2 = intercept[MalformedRowException](BinaryRowCodec.deserialize(Array[Byte](0, 0), g.types))
    assert(e2.getMessage ===
      "Malformed binary row at byte 0: expected a 4-byte arity prefix, found 2 bytes (serialized row is truncated)")
  }

  test("a truncated fixed part is reported with the needed size") {
    val g = golden("integers")
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(g.serialized.take(20), g.types))
    assert(e.getMessage ===
      "Malformed binary row at byte 20: expected at least 48 bytes for 5 fields, found 16 bytes (in serialized row)")
  }

  test("an out-of-range string offset is reported, not read") {
    val g = golden("long strings")
    val bytes = g.serialized.clone()
    le(bytes).putLong(slotOf(g, 1), (4000L << 32) | 9L)
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(bytes, g.types))
    assert(e.getMessage === "Malformed binary row at byte 20: expected bytes of field 1 within bytes [32, 120), " +
      "found [4000, 4009) (in serialized row)")
  }

  test("a string offset into the fixed part is reported") {
    val g = golden("long strings")
    val bytes = g.serialized.clone()
    le(bytes).putLong(slotOf(g, 0), (8L << 32) | 8L)
    intercept[MalformedRowException](BinaryRowCodec.deserialize(bytes, g.types))
  }

  test("an inline length above 7 is reported") {
    val g = golden("inline strings")
    val bytes = g.serialized.clone()
    bytes(slotOf(g, 1) + 7) = 0x88.toByte
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(bytes, g.types))
    assert(
      e.getMessage === "Malformed binary row at byte 27: expected inline length 0..7 for field 1, found 8 (in serialized row)")
  }

  test("a nano-of-millisecond out of range is reported") {
    val g = golden("wide timestamps")
    val bytes = g.serialized.clone()
    val word = le(bytes).getLong(slotOf(g, 0))
    le(bytes).putLong(slotOf(g, 0), (word & 0xffffffff00000000L) | 1000000L)
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(bytes, g.types))
    assert(e.getMessage ===
      "Malformed binary row at byte 12: expected nano-of-millisecond 0..999999 for field 0, found 1000000 (in serialized row)")
  }

  test("a wide decimal with a bad length or too many digits is reported") {
    val g = golden("wide decimals")
    val bytes = g.serialized.clone()
    val word = le(bytes).getLong(slotOf(g, 0))
    le(bytes).putLong(slotOf(g, 0), (word & 0xffffffff00000000L) | 17L)
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(bytes, g.types))
    assert(
      e.getMessage === "Malformed binary row at byte 12: expected decimal byte length 1..16 for field 0, found 17 (in serialized row)")

    val t = Seq(DecimalType(3, 0))
    val raw = BinaryRowCodec.encode(new GenericInternalRow(Array[Any](Decimal(999))), t)
    le(raw).putLong(8, 1000L)
    val e2 = intercept[MalformedRowException](BinaryRowCodec.decode(raw, 0, raw.length, t))
    assert(e2.getMessage === "Malformed binary row at byte 8: expected a value of at most 3 digits for field 0, " +
      "found 1000 (decimal exceeds its declared precision)")
  }

  test("a row kind outside 0..3 is reported") {
    val g = golden("integers")
    val bytes = g.serialized.clone()
    bytes(4) = 9
    val e = intercept[MalformedRowException](BinaryRowCodec.deserialize(bytes, g.types))
    assert(e.getMessage === "Malformed binary row at byte 4: expected row kind 0..3, found 9 (in serialized row)")
  }
}
