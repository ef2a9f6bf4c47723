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

  test("the binary rows of consecutive keys hash apart: no bin of the memory table grows into a tree") {
    // a BIGINT key's binary row: 8 bytes of header and null bits, the value little-endian
    val rows = (0 until 1000000 by 7).map { i =>
      java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(8, i.toLong).array()
    }
    // the most keys in one bin of a java.util.HashMap holding them all: past 8 a bin becomes a tree
    def fullestBin(hashes: Seq[Int]): Int = {
      val bins = Integer.highestOneBit(hashes.size * 4 / 3) * 2
      hashes.groupBy(h => (h ^ (h >>> 16)) & (bins - 1)).values.map(_.size).max
    }
    assert(fullestBin(rows.map(new SpillingIndex.Key(_).hashCode)) <= 8)
    // a byte buffer's hash (the memory table's former key) piles such rows up
    assert(fullestBin(rows.map(java.nio.ByteBuffer.wrap(_).hashCode)) > 8)
  }
}
