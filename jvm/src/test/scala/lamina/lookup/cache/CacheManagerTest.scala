package lamina.lookup.cache

import java.io.File
import java.nio.file.Files

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup.{LookupOptions, LookupTestSupport}
import lamina.lookup.io.LocalFileInput

class CacheManagerTest extends AnyFunSuite with LookupTestSupport {

  test("cache keys compare by value") {
    assert(CacheKey.forPosition("/f", 10, 20, isIndex = true) == PositionCacheKey("/f", 10, 20, isIndex = true))
    assert(CacheKey.forPosition("/f", 10, 20, isIndex = true).hashCode == PositionCacheKey("/f", 10, 20, true).hashCode)
    assert(CacheKey.forPosition("/f", 10, 20, isIndex = true) != CacheKey.forPosition("/f", 10, 20, isIndex = false))
    assert(CacheKey.forPosition("/f", 10, 20, isIndex = true) != CacheKey.forPosition("/g", 10, 20, isIndex = true))
    assert(CacheKey.forPageIndex("/f", 4096, 3) == PageIndexCacheKey("/f", 4096, 3, isIndex = false))
    assert(CacheKey.forPageIndex("/f", 4096, 3) != CacheKey.forPageIndex("/f", 4096, 4))
    assert(CacheKey.forPageIndex("/f", 4096, 3) != CacheKey.forPageIndex("/f", 8192, 3))
  }

  test("ratio outside [0, 1) is rejected") {
    val e = intercept[BadInputException](new CacheManager(1000, 1.0))
    assert(e.getMessage == "The high priority pool ratio should be in the range [0, 1), got 1.0")
    val n = intercept[BadInputException](new CacheManager(-1, 0.5))
    assert(n.getMessage == "Cache size must be at least 0 bytes, got -1")
  }

  test("sized from lookup options") {
    val m = CacheManager.fromOptions(LookupOptions(cacheMaxMemorySize = 1L << 20, highPriorityPoolRatio = 0.5))
    assert(m.maxMemoryBytes == (1L << 20) && m.indexPoolBytes == (1L << 19) && m.dataPoolBytes == (1L << 19))
  }

  test("pool split follows the ratio; ratio 0 shares one pool") {
    val m = new CacheManager(1000, 0.25)
    assert(m.indexPoolBytes == 250 && m.dataPoolBytes == 750)
    m.getPage(CacheKey.forPosition("/f", 0, 100, isIndex = true), _ => new Array[Byte](100), _ => ())
    m.getPage(CacheKey.forPosition("/f", 0, 100, isIndex = false), _ => new Array[Byte](60), _ => ())
    assert(m.indexPoolUsedBytes == 100 && m.dataPoolUsedBytes == 60)

    val shared = new CacheManager(1000, 0)
    assert(shared.dataPoolBytes == 1000)
    shared.getPage(CacheKey.forPosition("/f", 0, 100, isIndex = true), _ => new Array[Byte](100), _ => ())
    shared.getPage(CacheKey.forPosition("/f", 0, 100, isIndex = false), _ => new Array[Byte](60), _ => ())
    assert(shared.dataPoolUsedBytes == 160 && shared.indexPoolUsedBytes == 0)
  }

  test("a page fits its pool up to the pool's size; the shared pool is the whole budget") {
    val m = new CacheManager(1000, 0.25)
    assert(m.fits(isIndex = true, 250) && !m.fits(isIndex = true, 251))
    assert(m.fits(isIndex = false, 750) && !m.fits(isIndex = false, 751))
    val shared = new CacheManager(1000, 0)
    assert(shared.fits(isIndex = true, 1000) && !shared.fits(isIndex = true, 1001))
    m.holdBeyondBudget(300)
    m.holdBeyondBudget(-300)
    assert(m.heldBeyondBudgetBytes == 0)
  }

  test("a hit does not load; loads are counted") {
    val m = new CacheManager(10000, 0.5)
    var loads = 0
    val key = CacheKey.forPageIndex("/f", 100, 0)
    val a = m.getPage(key, _ => { loads += 1; Array[Byte](1, 2) }, _ => ())
    val b = m.getPage(key, _ => { loads += 1; Array[Byte](3) }, _ => ())
    assert(a eq b)
    assert(loads == 1 && m.loadCount == 1)
    m.invalidPage(key)
    assert(m.getPage(key, _ => Array[Byte](3), _ => ()).toSeq == Seq[Byte](3))
    assert(m.loadCount == 2)
  }

  test("filling past the budget keeps the budget and runs eviction callbacks") {
    val budget = 64 * 1024L
    val m = new CacheManager(budget, 0.25)
    val removed = mutable.Set.empty[CacheKey]
    val pageBytes = 1000
    for (i <- 0 until 500; isIndex <- Seq(true, false)) {
      val key = CacheKey.forPosition("/f", i.toLong * pageBytes, pageBytes, isIndex)
      m.getPage(key, _ => new Array[Byte](pageBytes), k => removed.synchronized(removed += k))
      assert(m.indexPoolUsedBytes <= m.indexPoolBytes)
      assert(m.dataPoolUsedBytes <= m.dataPoolBytes)
    }
    assert(m.indexPoolUsedBytes + m.dataPoolUsedBytes <= budget)
    assert(m.indexPoolUsedBytes > m.indexPoolBytes - 2 * pageBytes)
    assert(m.dataPoolUsedBytes > m.dataPoolBytes - 2 * pageBytes)
    val held = (budget / pageBytes).toInt
    assert(removed.size >= 1000 - held)
    assert(removed.count(_.isIndex) >= 500 - (m.indexPoolBytes / pageBytes).toInt)
  }

  /** A 10000-byte file (byte i is i % 251) open for reading, and a manager of `budget` bytes (one pool). */
  private def withBlockFile(budget: Long)(f: (LocalFileInput, CacheManager) => Unit): Unit =
    withTempDir { dir =>
      val file = new File(dir, "blocks")
      Files.write(file.toPath, Array.tabulate[Byte](10000)(i => (i % 251).toByte))
      val input = new LocalFileInput(file)
      try f(input, new CacheManager(budget, 0))
      finally input.close()
    }

  test("block cache refreshes hot blocks, drops evicted ones, and invalidates its pages on close") {
    withBlockFile(2500) { (input, m) =>
      val cache = new BlockCache(input, m, slotCount = 10)
      val raw: (Long, Page) => RawPage = (_, p) => new RawPage(p)
      def block(i: Int, length: Int = 1000, decode: BlockCache.Decode = BlockCache.AsStored()) =
        cache.getSlot(i, i * 1000L, length, isIndex = false, decode, raw).bytes
      val first = block(0)
      assert(first.toSeq == (0 until 1000).map(i => (i % 251).toByte))
      assert(m.loadCount == 1)
      (1 until CacheManager.RefreshCount).foreach(_ => block(0))
      assert(m.loadCount == 1)
      // The next access reaches the manager again (a hit there, so still one load).
      assert(block(0) eq first)
      assert(m.loadCount == 1)
      block(1)
      block(2)
      block(3)
      assert(m.dataPoolUsedBytes <= 2500)
      assert(cache.referencedPages <= 2, "evicted pages are no longer referenced")
      // a decoder gets the stored bytes in a page and writes the block into a page it allocates
      val decoded = block(5, 10,
        BlockCache.Decoded { (offset, stored, allocate) =>
          assert(offset == 5000 && stored.length == 10)
          val page = allocate(stored.length)
          (0 until stored.length).foreach(i => page.bytes(i) = (stored.bytes(i) + 1).toByte)
          page
        })
      assert(decoded.take(10).toSeq == (5000 until 5010).map(i => (i % 251 + 1).toByte))
      cache.close()
      assert(m.dataPoolUsedBytes == 0)
      assert(cache.referencedPages == 0)
    }
  }

  test("slots: a warm access skips the manager, eviction empties the slot, derived bytes count, close invalidates") {
    withBlockFile(3200) { (input, m) =>
      final class View(p: Page) extends PageView(p) { def derivedBytes: Int = 500 }
      val cache = new BlockCache(input, m, slotCount = 4)
      val view: (Long, Page) => View = (_, p) => new View(p)
      def slot(i: Int) = cache.getSlot(i, i * 1000L, 1000, isIndex = false, BlockCache.AsStored(), view)
      val first = slot(0)
      assert(first.page.bytes.toSeq == (0 until 1000).map(i => (i % 251).toByte))
      assert(m.loadCount == 1 && m.dataPoolUsedBytes == 1500, "the page and its derived bytes")
      (1 until 3 * CacheManager.RefreshCount).foreach(_ => assert(slot(0) eq first, "the same view while cached"))
      assert(m.loadCount == 1)
      slot(1)
      slot(2)
      assert(m.dataPoolUsedBytes <= 3200)
      assert(m.loadCount == 3)
      assert(cache.referencedPages == 2, "the evicted page's slot is empty")
      cache.close()
      assert(m.dataPoolUsedBytes == 0)
      assert(cache.referencedPages == 0)
    }
  }

  test("two readers of one file: a page one loaded and the other found is let go by both when evicted") {
    withBlockFile(4000) { (input, m) =>
      val a = new BlockCache(input, m, slotCount = 3)
      val b = new BlockCache(input, m, slotCount = 3)
      val raw: (Long, Page) => RawPage = (_, p) => new RawPage(p)
      def read(c: BlockCache, i: Int) = c.getSlot(i, i * 1000L, 1000, isIndex = false, BlockCache.AsStored(), raw)
      (0 until 3).foreach(i => read(a, i))
      (0 until 3).foreach(i => read(b, i))
      assert(m.loadCount == 3, "b found a's pages")
      assert(a.referencedPages == 3 && b.referencedPages == 3)
      // many refreshes through one slot register it once: still one callback to run per slot
      (0 until 5 * CacheManager.RefreshCount).foreach(_ => read(b, 0))
      // the manager lets pages 0-2 go (invalidated here: its admission policy, not recency, decides
      // which pages an eviction picks)
      (0 until 3).foreach(i => m.invalidPage(CacheKey.forPosition(input.path, i * 1000L, 1000, isIndex = false)))
      assert(m.dataPoolUsedBytes == 0)
      assert(b.referencedPages == 0 && a.referencedPages == 0, "no reader holds a page the manager let go")
      assert(read(b, 0).bytes.take(1000).toSeq == (0 until 1000).map(i => (i % 251).toByte))
      a.close()
      b.close()
      assert(m.dataPoolUsedBytes == 0)
    }
  }
}
