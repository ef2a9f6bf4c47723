package lamina.format

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.types._

class BucketFunctionTest extends AnyFunSuite {
  private val rnd = new scala.util.Random(42)

  private def value(t: DataType): Any = if (rnd.nextInt(10) == 0) null
  else t match {
    case _: BooleanType => rnd.nextBoolean()
    case _: TinyIntType => rnd.nextInt().toByte
    case _: SmallIntType => rnd.nextInt().toShort
    case _: IntType | _: DateType => rnd.nextInt()
    case _: BigIntType => rnd.nextLong()
    case _ => UTF8String.fromString(rnd.alphanumeric.take(rnd.nextInt(20)).mkString)
  }

  test("the reused-buffer bucket function agrees with Paimon's bucket of the encoded key, nulls included") {
    val keys: Seq[Seq[DataType]] = Seq(
      Seq(BigIntType()), Seq(IntType()), Seq(DateType()), Seq(SmallIntType()), Seq(TinyIntType()), Seq(BooleanType()),
      Seq(IntType(), BigIntType()), Seq(BigIntType(), TinyIntType(), BooleanType(), SmallIntType()),
      Seq(VarCharType(VarCharType.MaxLength)), Seq(BigIntType(), VarCharType(VarCharType.MaxLength)),
      // the most fields hashed from their values, and one more (8 more header bytes: through the buffer)
      Seq.fill(BinaryRowCodec.MaxHashFixedArity)(IntType()), Seq.fill(BinaryRowCodec.MaxHashFixedArity + 1)(TinyIntType()))
    keys.foreach { types =>
      Seq(1, 3, 16).foreach { buckets =>
        // the key sits after one unrelated column, as bucket keys sit among a table's columns
        val ordinals = types.indices.map(_ + 1).toArray
        val f = new BucketFunction(ordinals, types, buckets)
        (1 to 300).foreach { _ =>
          val row = new GenericInternalRow((Seq[Any](UTF8String.fromString("other")) ++ types.map(value)).toArray)
          assert(f(row) === Bucket.bucketOf(row, ordinals, types, buckets), s"types $types, $buckets buckets, row $row")
        }
      }
    }
  }

  test("a fixed-width key hashed from its values hashes as its encoded bytes") {
    val keys: Seq[Seq[DataType]] = Seq(Seq(BigIntType()), Seq(BooleanType(), SmallIntType(), TinyIntType(), DateType()),
      Seq.fill(BinaryRowCodec.MaxHashFixedArity)(BigIntType()))
    keys.foreach { types =>
      val ordinals = types.indices.toArray
      val widths = BinaryRowCodec.fixedWidths(types).get
      val buffer = new Array[Byte](BinaryRowCodec.fixedPartSize(types.size))
      (1 to 300).foreach { _ =>
        val row = new GenericInternalRow(types.map(value).toArray)
        BinaryRowCodec.encodeFixedInto(row, ordinals, types.toIndexedSeq, widths, buffer)
        assert(BinaryRowCodec.hashFixed(row, ordinals, types.toIndexedSeq, widths) === BinaryRowCodec.hash(buffer), s"$row")
      }
    }
    val tooWide = Seq.fill(BinaryRowCodec.MaxHashFixedArity + 1)(IntType()).toIndexedSeq
    val e = intercept[IllegalArgumentException](BinaryRowCodec.hashFixed(
        new GenericInternalRow(tooWide.size), tooWide.indices.toArray, tooWide, BinaryRowCodec.fixedWidths(tooWide).get))
    assert(
      e.getMessage === s"requirement failed: hashFixed takes at most ${BinaryRowCodec.MaxHashFixedArity} fields, got ${tooWide.size}")
  }

  test("the hash of a one-field slot is the hash of the encoded BIGINT, INT or DATE key") {
    (1 to 300).foreach { _ =>
      val l = rnd.nextLong()
      val i = rnd.nextInt()
      assert(BinaryRowCodec.hashOfSlot(l) === BinaryRowCodec.hash(BinaryRowCodec.encode(
          new GenericInternalRow(Array[Any](l)), Array(0), Seq(BigIntType()))))
      Seq(IntType(), DateType()).foreach { t =>
        assert(BinaryRowCodec.hashOfSlot(i & 0xffffffffL) === BinaryRowCodec.hash(BinaryRowCodec.encode(
            new GenericInternalRow(Array[Any](i)), Array(0), Seq(t))))
      }
    }
  }
}
