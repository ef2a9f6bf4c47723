package lamina.lookup

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class SpillingIndexTest extends AnyFunSuite with LookupTestSupport {
  private def bytes(i: Int): Array[Byte] = java.nio.ByteBuffer.allocate(4).putInt(i).array()

  test("puts past the memory bound spill to sorted runs; a get answers the newest value of a key") {
    withTempDir { dir =>
      // about 20 entries of 4-byte keys and values per run
      val index = new SpillingIndex(dir, LookupOptions(), newCache(), 20 * (8 + SpillingIndex.EntryOverhead))
      val model = scala.collection.mutable.HashMap.empty[Int, Int]
      val rnd = new Random(11)
      for (step <- 0 until 2000) {
        val k = rnd.nextInt(500)
        index.put(bytes(k), bytes(step))
        model(k) = step
      }
      assert(index.spilledRuns >= 90)
      for (k <- 0 until 600) {
        val got = Option(index.get(bytes(k))).map(java.nio.ByteBuffer.wrap(_).getInt)
        assert(got === model.get(k), s"key $k")
      }
      index.close()
      assert(dir.listFiles().forall(d => Option(d.listFiles()).forall(_.isEmpty)))
    }
  }

  test("a value replaced in memory is counted by its new size, not as a new entry") {
    withTempDir { dir =>
      val index = new SpillingIndex(dir, LookupOptions(), newCache(), 3 * (8 + SpillingIndex.EntryOverhead))
      (0 until 100).foreach(step => index.put(bytes(1), bytes(step)))
      assert(index.spilledRuns === 0)
      assert(java.nio.ByteBuffer.wrap(index.get(bytes(1))).getInt === 99)
      assert(index.get(bytes(2)) === null)
      index.close()
    }
  }
}
