package lamina.lookup.cache

import java.io.File

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.{LocalFileType, LookupOptions, LookupStoreFactory, LookupTestSupport}
import lamina.lookup.compression.CompressionType

/** What a lookup counts of the pages it needed: a miss per page read from the file (exactly the cache
 *  manager's loads, when one caller reads), a hit per page already in memory. */
class CacheCountersTest extends AnyFunSuite with LookupTestSupport {
  private val entries = (0 until 2000).map(i => (f"key-$i%06d".getBytes("US-ASCII"), Array.fill[Byte](8)(i.toByte)))

  for ((kind, bloom) <- Seq((LocalFileType.Sort, true), (LocalFileType.Sort, false), (LocalFileType.Hash, false)))
    test(s"a lookup counts a miss per page loaded and a hit per page in memory (${kind.name}, bloom filter $bloom)") {
      withTempDir { dir =>
        val options = LookupOptions(cachePageSize = 256, compression = CompressionType.None, localFileType = kind,
          bloomFilterEnabled = bloom)
        val manager = newCache()
        val factory = LookupStoreFactory.create(options, manager)
        val file = new File(dir, "data")
        writeAll(factory, file, entries)
        val r = factory.createReader(file)
        try {
          val (k, v) = entries(700)
          val first = new CacheCounters
          val loads = manager.loadCount
          assert(hex(r.lookup(k, first)) == hex(v))
          assert(first.misses > 0 && first.misses == manager.loadCount - loads, first)
          // the same pages again: all in memory, as many as the first lookup needed
          val again = new CacheCounters
          assert(hex(r.lookup(k, again)) == hex(v))
          assert((again.hits, again.misses) == ((first.hits + first.misses, 0L)), again)
          assert(manager.loadCount - loads == first.misses, "nothing loaded again")
          // a key far off needs a data page not loaded yet (in a sort file, the index block is in memory)
          val far = new CacheCounters
          assert(hex(r.lookup(entries(1900)._1, far)) == hex(entries(1900)._2))
          assert(far.misses >= 1 && far.misses == manager.loadCount - loads - first.misses, far)
          assert(kind == LocalFileType.Hash || far.hits >= 1, far)
          // uncounted lookups count nowhere
          r.lookup(k)
          assert(CacheCounters.Ignored.hits == 0 && CacheCounters.Ignored.misses == 0)
        } finally r.close()
      }
    }

  test("a bloom filter kept by its reader beyond the budget counts a miss when read, hits after") {
    withTempDir { dir =>
      val options = LookupOptions(cachePageSize = 64, compression = CompressionType.None)
      val manager = new CacheManager(3L << 10, 0.0) // too small for the bloom filter: its reader keeps it
      val factory = LookupStoreFactory.create(options, manager)
      val file = new File(dir, "data")
      writeAll(factory, file, entries)
      val r = factory.createReader(file)
      try {
        val absent = "nope".getBytes("US-ASCII")
        val first = new CacheCounters
        r.lookup(absent, first)
        val again = new CacheCounters
        r.lookup(absent, again)
        assert(first.misses >= 1 && again.misses == 0 && again.hits >= 1, s"$first $again")
      } finally r.close()
    }
  }
}
