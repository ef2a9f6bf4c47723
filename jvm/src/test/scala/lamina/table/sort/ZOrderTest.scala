package lamina.table.sort

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class ZOrderTest extends AnyFunSuite {
  private def bits(b: Array[Byte]): String =
    b.map(x => String.format("%8s", Integer.toBinaryString(x & 0xff)).replace(' ', '0')).mkString

  test("bits are interleaved most significant first, one of each column in turn") {
    val z = ZOrder.interleave(Array(Array(0xf0.toByte), Array(0x0f.toByte)))
    assert(bits(z) === "1010101001010101")
  }

  test("a shorter column drops out once its bits run out") {
    val z = ZOrder.interleave(Array(Array(0xff.toByte, 0xff.toByte), Array(0x00.toByte)))
    assert(bits(z) === "1010101010101010" + "11111111")
    assert(ZOrder.interleave(Array.empty).isEmpty)
  }

  test("property: among rows equal in the other columns, the Z-value orders as the column that differs") {
    val rnd = new Random(7)
    for (_ <- 0 until 5000) {
      val n = 1 + rnd.nextInt(3)
      val row = Array.fill(n)(rnd.nextInt(2000) - 1000)
      val i = rnd.nextInt(n)
      val other = row.clone(); other(i) = rnd.nextInt(2000) - 1000
      def z(r: Array[Int]) = ZOrder.interleave(r.map(v => OrderedBytes.long(v.toLong)))
      assert(Integer.signum(OrderedBytes.Unsigned.compare(z(row), z(other))) === Integer.signum(row(i).compare(other(i))))
    }
  }

  test("property: each point's Z-value is its own (distinct points, distinct values)") {
    val rnd = new Random(11)
    val points = Seq.fill(3000)(Array(rnd.nextInt(64), rnd.nextInt(64)).map(v => OrderedBytes.long(v.toLong))).distinctBy(
      _.map(_.toSeq).toSeq)
    assert(points.map(p => ZOrder.interleave(p).toSeq).distinct.size === points.size)
  }
}
