package lamina.lookup.sort

import java.io.File

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup._
import lamina.lookup.cache.CacheManager
import lamina.lookup.compression.CompressionType

/** Reading rules of [[SortLookupStoreReader]] beyond a plain round trip: structures larger than the
 *  cache can hold, and the footer's record count. */
class SortLookupStoreReaderTest extends AnyFunSuite with LookupTestSupport {

  /** 5000 entries in 64-byte blocks: about 1250 data blocks, an index block of about 35 KB and a
   *  bloom filter of about 4 KB. */
  private val entries = (0 until 5000).map(i => (f"key-$i%06d".getBytes("US-ASCII"), Array[Byte](i.toByte)))
  private val smallPages = LookupOptions(cachePageSize = 64, compression = CompressionType.None)

  private def withFile[T](options: LookupOptions)(f: File => T): T = withTempDir { dir =>
    val file = new File(dir, "data.sort")
    writeAll(new SortLookupStoreFactory(options, newCache(), UnsignedBytesComparator), file, entries)
    f(file)
  }

  // An 8 KiB cache: a 2 KiB index pool and a 6 KiB data pool; or one shared pool of 3 KiB.
  for ((budget, ratio) <- Seq((8L << 10, 0.25), (3L << 10, 0.0)))
    test(s"an index block and bloom filter larger than their pool are read once, not per lookup (ratio $ratio)") {
      withFile(smallPages) { file =>
        val manager = new CacheManager(budget, ratio)
        val r = new SortLookupStoreReader(file, manager, UnsignedBytesComparator)
        try {
          val probed = (100 until 110).map(entries)
          def pass(): Unit = probed.foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v), hex(k)) }
          pass() // loads the few data blocks these keys lie in
          val loads = manager.loadCount
          (0 until 20).foreach(_ => pass())
          assert(manager.loadCount == loads, "200 lookups of cached data blocks loaded nothing")
          // held by the reader, beyond the budget: the index block with its search index, and the bloom filter
          val bloomBytes = r.footer.bloomFilter.get.handle.size
          assert(r.heldBeyondBudget)
          assert(manager.heldBeyondBudgetBytes > bloomBytes + r.footer.index.size, manager.heldBeyondBudgetBytes)
          assert(manager.dataPoolUsedBytes + manager.indexPoolUsedBytes <= budget)
        } finally r.close()
        assert(manager.heldBeyondBudgetBytes == 0, "given back on close")
      }
    }

  test("an index block and bloom filter that fit their pool go through the cache") {
    withFile(smallPages) { file =>
      val manager = newCache(bytes = 1L << 20)
      val r = new SortLookupStoreReader(file, manager, UnsignedBytesComparator)
      try {
        entries.take(100).foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v)) }
        assert(!r.heldBeyondBudget && manager.heldBeyondBudgetBytes == 0)
        assert(manager.indexPoolUsedBytes > r.footer.index.size, "the index block and bloom filter are cached")
      } finally r.close()
    }
  }
}
