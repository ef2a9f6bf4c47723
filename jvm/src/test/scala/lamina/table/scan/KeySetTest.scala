package lamina.table.scan

import scala.util.Random

import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class KeySetTest extends AnyFunSuite {
  test("anyWithin and contains agree with a scan of the values, over random sets and ranges") {
    for (seed <- 1 to 20) {
      val rnd = new Random(seed)
      val values = Array.fill(rnd.nextInt(50))(rnd.nextInt(200).toLong: Any) ++ Array[Any](null)
      val set = new KeySet("k", LongType, values)
      val present = values.filter(_ != null).map(_.asInstanceOf[Long]).toSet
      assert(set.size === present.size)
      for (_ <- 1 to 200) {
        val a = rnd.nextInt(220).toLong - 10
        val b = a + rnd.nextInt(30)
        assert(set.anyWithin(a, b) === present.exists(v => v >= a && v <= b), s"seed $seed [$a, $b]")
        assert(set.contains(a) === present.contains(a))
      }
      assert(set.anyWithin(null, 5L) && set.anyWithin(5L, null), "an unknown bound prunes nothing")
      assert(!set.contains(null))
    }
  }

  test("strings compare as their bytes, as the files' key statistics do") {
    val s = (v: String) => UTF8String.fromString(v)
    val set = new KeySet("id", StringType, Array(s("b"), s("é"), s("b")))
    assert(set.size === 2)
    assert(set.anyWithin(s("a"), s("c")) && !set.anyWithin(s("c"), s("d")) && set.anyWithin(s("z"), s("\u00ff")))
    assert(set.contains(s("é")) && !set.contains(s("a")))
  }

  test("only types whose values are equal exactly when their internal values are") {
    for (t <- Seq(IntegerType, LongType, ShortType, ByteType, BooleanType, DateType, TimestampType, TimestampNTZType,
        DecimalType(10, 2), StringType))
      assert(KeySet.supports(t), t)
    for (t <- Seq(DoubleType, FloatType, BinaryType, StringType("UTF8_LCASE"), ArrayType(IntegerType)))
      assert(!KeySet.supports(t), t)
    intercept[IllegalArgumentException](new KeySet("d", DoubleType, Array(1.0)))
  }
}
