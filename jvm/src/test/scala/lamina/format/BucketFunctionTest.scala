package lamina.format

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.types._

class BucketFunctionTest extends AnyFunSuite {
  private val rnd = new scala.util.Random(42)

  private def value(t: DataType): Any = if (rnd.nextInt(10) == 0) null else t match {
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
      Seq(VarCharType(VarCharType.MaxLength)), Seq(BigIntType(), VarCharType(VarCharType.MaxLength)))
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
}
