package lamina.lookup.bloom

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.cache.{CacheKey, CacheManager}
import lamina.lookup.io.KeyHash

class BloomFilterTest extends AnyFunSuite {

  test("no false negatives and false positives near the target rate") {
    val rnd = new Random(17)
    val f = BloomFilter.create(10000, 0.05)
    val added = Array.fill(10000)(rnd.nextLong())
    added.foreach(f.addHash)
    assert(added.forall(f.testHash))
    val fp = (0 until 20000).count(_ => f.testHash(KeyHash.hash64(Array.fill[Byte](16)(rnd.nextInt().toByte))))
    assert(fp < 20000 * 0.08, s"$fp false positives")
    assert(BloomFilter.optimalNumBytes(10000, 0.05) == 7808, "122 blocks of 64 bytes")
    assert(BloomFilter.numHashFunctions(10000, 7808) == 4)
  }

  test("file-based filter loads through the index pool, drops bits on eviction, reloads on demand") {
    val source = BloomFilter.create(100, 0.01)
    (0 until 100).foreach(i => source.addHash(i.toLong * 0x9e3779b97f4a7c15L))
    val m = new CacheManager(source.bits.length * 4L, 0.5)
    var loads = 0
    val key = CacheKey.forPosition("/file", 0, source.bits.length, isIndex = true)
    val f = new FileBasedBloomFilter(m, key, source.bits.length, 100, () => { loads += 1; source.bits.clone() })
    assert(!f.isLoaded)
    assert(f.testHash(0L))
    assert(f.isLoaded && loads == 1)
    assert((0 until 100).forall(i => f.testHash(i.toLong * 0x9e3779b97f4a7c15L)))
    assert(loads == 1)
    m.invalidPage(key)
    assert(!f.isLoaded)
    assert(f.testHash(99L * 0x9e3779b97f4a7c15L))
    assert(loads == 2)
    f.close()
    assert(!f.isLoaded)
    assert(m.indexPoolUsedBytes == 0)
  }

  test("bits larger than the index pool are loaded once and held beyond the budget until closed") {
    val source = BloomFilter.create(1000, 0.01)
    val m = new CacheManager(source.bits.length * 2L, 0.25) // an index pool of half the bits
    val key = CacheKey.forPosition("/file", 0, source.bits.length, isIndex = true)
    var loads = 0
    val f = new FileBasedBloomFilter(m, key, source.bits.length, 1000, () => { loads += 1; source.bits.clone() })
    assert(f.heldBeyondBudget && !f.isLoaded && m.heldBeyondBudgetBytes == 0)
    (0 until 5 * CacheManager.RefreshCount).foreach(i => f.testHash(i.toLong))
    assert(loads == 1 && m.loadCount == 0, "loaded once, outside the manager")
    assert(m.heldBeyondBudgetBytes == source.bits.length && m.indexPoolUsedBytes == 0)
    f.close()
    assert(m.heldBeyondBudgetBytes == 0 && !f.isLoaded)
  }

  test("two file-based filters over the same bits both drop them when the manager lets them go") {
    val source = BloomFilter.create(100, 0.01)
    val m = new CacheManager(source.bits.length * 4L, 0.5)
    val key = CacheKey.forPosition("/file", 0, source.bits.length, isIndex = true)
    var loads = 0
    val f1 = new FileBasedBloomFilter(m, key, source.bits.length, 100, () => { loads += 1; source.bits.clone() })
    val f2 = new FileBasedBloomFilter(m, key, source.bits.length, 100, () => { loads += 1; source.bits.clone() })
    f1.testHash(1L)
    f2.testHash(1L)
    assert(loads == 1 && f1.isLoaded && f2.isLoaded, "f2 found f1's bits")
    m.invalidPage(key)
    assert(!f1.isLoaded && !f2.isLoaded)
  }
}
