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

  private def nonNull(types: DataType*) =
    StructType(types.zipWithIndex.map { case (t, i) => StructField(s"_$i", t, nullable = i == 0) })

  test("one non-null BIGINT, INT or DATE key binds to the magic method, which agrees with the row path") {
    val rnd = new scala.util.Random(7)
    val long = BucketTransformFunction.bind(nonNull(IntegerType, LongType))
    val longTag = BucketTagFunction.bind(nonNull(IntegerType, LongType))
    assert(long.isInstanceOf[BucketTransformFunction.LongKey] && longTag.isInstanceOf[BucketTagFunction.LongKeyTag])
    val int = BucketTransformFunction.bind(nonNull(IntegerType, IntegerType)).asInstanceOf[BucketTransformFunction.IntKey]
    val date = BucketTransformFunction.bind(nonNull(IntegerType, DateType)).asInstanceOf[BucketTransformFunction.IntKey]
    val intTag = BucketTagFunction.bind(nonNull(IntegerType, DateType)).asInstanceOf[BucketTagFunction.IntKeyTag]
    // Spark finds the magic method by its name and the Java classes of the input types
    assert(long.getClass.getMethod("invoke", classOf[Int], classOf[Long]) != null)
    assert(int.getClass.getMethod("invoke", classOf[Int], classOf[Int]) != null)
    Seq(1, 3, 16).foreach { n =>
      val tags = BucketTagFunction.tags(n)
      (1 to 300).foreach { _ =>
        val l = rnd.nextLong()
        val i = rnd.nextInt()
        val lb = long.asInstanceOf[BucketTransformFunction.LongKey].invoke(n, l)
        assert(lb === Bucket.bucketOf(new GenericInternalRow(Array[Any](l)), Array(0), Seq(lamina.types.BigIntType()), n))
        assert(lb === long.asInstanceOf[BucketTransformFunction.Bound].produceResult(new GenericInternalRow(Array[Any](n, l))))
        assert(longTag.asInstanceOf[BucketTagFunction.LongKeyTag].invoke(n, l) === tags(lb))
        Seq(int -> lamina.types.IntType(), date -> lamina.types.DateType()).foreach { case (f, t) =>
          assert(f.invoke(n, i) === Bucket.bucketOf(new GenericInternalRow(Array[Any](i)), Array(0), Seq(t), n))
        }
        assert(intTag.invoke(n, i) === tags(date.invoke(n, i)))
      }
    }
  }

  test("a nullable key binds to the row path, which hashes nulls as Paimon does") {
    val f = BucketTransformFunction.bind(input(IntegerType, LongType))
    assert(f.getClass == classOf[BucketTransformFunction.Bound])
    val expected = Bucket.bucketOf(new GenericInternalRow(Array[Any](null)), Array(0), Seq(lamina.types.BigIntType()), 5)
    assert(f.asInstanceOf[BucketTransformFunction.Bound].produceResult(new GenericInternalRow(Array[Any](5, null))) == expected)
    assert(BucketTagFunction.bind(input(IntegerType, LongType)).getClass == classOf[BucketTagFunction.Tag])
  }
}
