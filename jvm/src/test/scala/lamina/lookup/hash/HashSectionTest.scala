package lamina.lookup.hash

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class HashSectionTest extends AnyFunSuite {

  test(
    "home slots: floor(h * slotCount / 2^64) with h unsigned, ascending with h, the upper half of hashes in the upper half of slots") {
    val rnd = new Random(7)
    for (slotCount <- Seq(2L, 4L, 1334L, 13333334L, 1L << 40)) {
      val s = HashSection(16, slotCount - 1, slotCount, 0)
      val hashes = Seq(0L, 1L, Long.MaxValue, Long.MinValue, -1L) ++ Seq.fill(2000)(rnd.nextLong())
      hashes.foreach { h =>
        val exact = (BigInt(h) & ((BigInt(1) << 64) - 1)) * slotCount >> 64
        assert(s.homeSlot(h) == exact.toLong, s"h=$h slots=$slotCount")
        assert((s.homeSlot(h) < slotCount / 2) == (h >= 0), s"h=$h slots=$slotCount")
      }
      val sorted = hashes.sortWith(java.lang.Long.compareUnsigned(_, _) < 0).map(s.homeSlot)
      assert(sorted == sorted.sorted)
    }
  }

  test("slot counts exceed the keys, are even and keep the load factor") {
    Seq(1L, 2L, 3L, 10L, 1000L, 999999L).foreach { n =>
      val c = HashSection.slotCountFor(n, 0.75)
      assert(c > n && c % 2 == 0 && n <= c * 0.75, s"$n keys: $c slots")
    }
  }

  test("maxKeys: the most keys whose slots fit one region, for every key length") {
    Seq(0, 1, 16, 100, 65535).foreach { len =>
      val n = HashSection.maxKeys(len, 0.75)
      def bytes(k: Long) = HashSection.slotCountFor(k, 0.75) * HashSection.slotSize(len)
      assert(n > 0 && bytes(n) <= HashSection.MaxRegionBytes && bytes(n + 1) > HashSection.MaxRegionBytes, s"key length $len")
    }
  }
}
