package lamina.mergetree

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.UnsignedBytesComparator

/** Random keys of each key shape: equal keys have equal bytes and unequal keys unequal bytes; where the
 *  encoding keeps order, the bytes compare as the table's key ordering does. Seeds are fixed. */
class LookupKeyEncodingTest extends AnyFunSuite {

  private def value(rnd: Random, t: DataType): Any = t match {
    case BooleanType => rnd.nextBoolean()
    case ByteType => (rnd.nextInt(7) - 3).toByte
    case ShortType => Seq[Short](Short.MinValue, -1, 0, 1, Short.MaxValue, (rnd.nextInt(200) - 100).toShort)(rnd.nextInt(6))
    case IntegerType | DateType => Seq(Int.MinValue, -1, 0, 1, Int.MaxValue, rnd.nextInt(9) - 4)(rnd.nextInt(6))
    case LongType | TimestampType => Seq(Long.MinValue, -1L, 0L, 255L, 256L, Long.MaxValue, rnd.nextLong() % 5)(rnd.nextInt(7))
    case d: DecimalType => Decimal(BigDecimal(rnd.nextInt(2001) - 1000, d.scale), d.precision, d.scale)
    case StringType =>
      // zero bytes and prefixes of each other, which an escaping must keep apart
      UTF8String.fromBytes(Array.fill(rnd.nextInt(4))(Seq[Byte](0, 1, 'a', 0xff.toByte)(rnd.nextInt(4))))
    case BinaryType => Array.fill(rnd.nextInt(4))(Seq[Byte](0, 1, 0x7f, 0x80.toByte)(rnd.nextInt(4)))
    case DoubleType => Seq(-1.5, 0.0, 2.25, Double.MaxValue)(rnd.nextInt(4))
  }

  private def check(types: Seq[DataType], ordered: Boolean): Unit = {
    val encoding = new LookupKeyEncoding(types)
    assert(encoding.orderPreserving == ordered, types)
    val ordering = KeyOrder.orderingOf(types)
    val rnd = new Random(types.hashCode)
    val keys = Seq.fill(300)(InternalRow.fromSeq(types.map(value(rnd, _))))
    val bytes = keys.map(encoding.encode)
    for (i <- keys.indices; j <- keys.indices) {
      val byKey = Integer.signum(ordering.compare(keys(i), keys(j)))
      val byBytes = Integer.signum(UnsignedBytesComparator.compare(bytes(i), bytes(j)))
      assert((byKey == 0) == (byBytes == 0), s"${keys(i)} vs ${keys(j)} in $types")
      if (ordered) assert(byKey == byBytes, s"${keys(i)} vs ${keys(j)} in $types")
    }
  }

  test("single columns of every ordered type keep the key order") {
    Seq(BooleanType, ByteType, ShortType, IntegerType, DateType, LongType, TimestampType, DecimalType(10, 2),
      DecimalType(18, 0), StringType, BinaryType).foreach(t => check(Seq(t), ordered = true))
  }

  test("composite keys keep the key order, a variable-length column anywhere") {
    check(Seq(StringType, IntegerType), ordered = true)
    check(Seq(BinaryType, StringType), ordered = true)
    check(Seq(IntegerType, StringType, LongType), ordered = true)
    check(Seq(BooleanType, ShortType, DecimalType(5, 1)), ordered = true)
  }

  test("other types key by equality alone") {
    check(Seq(DoubleType), ordered = false)
    check(Seq(IntegerType, DecimalType(30, 2)), ordered = false)
  }

  test("a bigint key is its value big-endian with the sign bit flipped") {
    val e = new LookupKeyEncoding(Seq(LongType))
    assert(e.encode(InternalRow(1L)).toSeq == Seq(0x80, 0, 0, 0, 0, 0, 0, 1).map(_.toByte))
    assert(e.encode(InternalRow(-1L)).toSeq == 0x7f.toByte +: Seq.fill(7)(0xff.toByte))
  }
}
