package lamina.table.sort

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class HilbertCurveTest extends AnyFunSuite {
  private def position(coords: Array[Long], bits: Int): BigInt = {
    val bytes = HilbertCurve.index(coords, bits)
    BigInt(1, bytes) >> (bytes.length * 8 - coords.length * bits)
  }

  private def walk(n: Int, bits: Int): Unit = {
    val side = 1 << bits
    val points = (0 until math.pow(side, n).toInt).map(k => Array.tabulate(n)(d => ((k / math.pow(side, d).toInt) % side).toLong))
    val byPosition = points.map(p => position(p, bits) -> p).toMap
    assert(byPosition.keySet === (0 until points.size).map(BigInt(_)).toSet, "a bijection onto 0 until side^n")
    for (i <- 1 until points.size) {
      val a = byPosition(BigInt(i - 1)); val b = byPosition(BigInt(i))
      assert(a.zip(b).map { case (x, y) => math.abs(x - y) }.sum === 1, s"positions ${i - 1} and $i are neighbours")
    }
  }

  test("2 dimensions of 3 bits: the curve visits every cell once, each step to a neighbour") { walk(2, 3) }
  test("3 dimensions of 2 bits: the curve visits every cell once, each step to a neighbour") { walk(3, 2) }
  test("4 dimensions of 2 bits: the curve visits every cell once, each step to a neighbour") { walk(4, 2) }

  test("the first cells of a 2 x 2 grid are visited in the Hilbert order (0,0) (0,1) (1,1) (1,0)") {
    val order = Seq((0L, 0L), (0L, 1L), (1L, 1L), (1L, 0L)).map { case (x, y) => position(Array(x, y), 1) }
    assert(order === Seq(BigInt(0), BigInt(1), BigInt(2), BigInt(3)))
  }

  test("64-bit coordinates: n * 8 bytes, distinct points at distinct positions") {
    val rnd = new Random(3)
    val points = Seq.fill(2000)(Array(rnd.nextLong(), rnd.nextLong() & 0xff, rnd.nextLong()))
    val idx = points.map(p => HilbertCurve.index(p).toSeq)
    assert(idx.forall(_.size == 24))
    assert(idx.distinct.size === points.map(_.toSeq).distinct.size)
  }

  test("one dimension: the position is the coordinate") {
    assert(position(Array(5L), 3) === BigInt(5))
  }
}
