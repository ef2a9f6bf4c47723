package lamina.spark

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.hash.Murmur3_x86_32
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.format.Bucket

class BucketTransformFunctionTest extends AnyFunSuite {

  private def input(types: DataType*) = StructType(types.zipWithIndex.map { case (t, i) => StructField(s"_$i", t) })

  test("bucket(n, cols) is Paimon's bucket of the key") {
    val f = BucketTransformFunction.bind(input(IntegerType, LongType, StringType))
      .asInstanceOf[BucketTransformFunction.Bound]
    val keyTypes = Seq(lamina.types.BigIntType(true), lamina.types.VarCharType(lamina.types.VarCharType.MaxLength))
    (0L until 200L).foreach { k =>
      val s = UTF8String.fromString(s"s$k")
      val row = new GenericInternalRow(Array[Any](7, k, s))
      val expected = Bucket.bucketOf(new GenericInternalRow(Array[Any](k, s)), Array(0, 1), keyTypes, 7)
      assert(f.produceResult(row) == expected)
    }
  }

  test("a timestamp key is not bound: its encoding depends on the table's precision") {
    assert(!BucketTransformFunction.supports(Seq(TimestampType)))
    intercept[UnsupportedOperationException](BucketTransformFunction.bind(input(IntegerType, TimestampType)))
  }

  test("bucket tags send bucket b to hash partition b") {
    Seq(1, 2, 3, 4, 16, 100, 1000).foreach { n =>
      val tags = BucketTagFunction.tags(n)
      assert(tags.distinct.length == n)
      tags.zipWithIndex.foreach { case (tag, b) =>
        assert(java.lang.Math.floorMod(Murmur3_x86_32.hashInt(tag, 42), n) == b, s"$n buckets, bucket $b")
      }
    }
  }
}
