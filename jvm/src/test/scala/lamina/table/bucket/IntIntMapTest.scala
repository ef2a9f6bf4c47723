package lamina.table.bucket

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class IntIntMapTest extends AnyFunSuite {
  test("agrees with a HashMap over random puts, overwrites and lookups, growing from the smallest size") {
    for (seed <- 1 to 5) {
      val rnd = new Random(seed)
      val m = new IntIntMap(expected = 1)
      val model = scala.collection.mutable.HashMap.empty[Int, Int]
      val universe = Array.fill(2000)(rnd.nextInt()) ++ Array(0, -1, Int.MinValue, Int.MaxValue)
      for (_ <- 1 to 20000) {
        val k = universe(rnd.nextInt(universe.length))
        if (rnd.nextBoolean()) {
          val v = rnd.nextInt(1000)
          assert(m.put(k, v) === !model.contains(k))
          model(k) = v
        } else {
          assert(m.get(k) === model.getOrElse(k, -1))
          assert(m.contains(k) === model.contains(k))
        }
      }
      assert(m.size === model.size)
      val all = scala.collection.mutable.HashMap.empty[Int, Int]
      m.foreach((k, v) => all(k) = v)
      assert(all === model)
    }
  }
}
