package lamina.lookup.bloom

import java.io.Closeable

import lamina.lookup.cache.{CacheKey, CacheManager}

/** A bloom filter whose bits live in a file and are read through the index pool of a [[CacheManager]]:
 *  loaded on first use, dropped when the manager evicts them, loaded again on demand.
 *
 * `load` reads and verifies the stored bits (the bytes of length `numBytes` at `key`).
 * Invariant: `filter`, when set, wraps the bytes the manager held under `key` when they were fetched.
 * Safe for concurrent use.
 */
final class FileBasedBloomFilter(
    manager: CacheManager,
    key: CacheKey,
    expectedEntries: Long,
    load: () => Array[Byte]) extends Closeable {
  require(key.isIndex, "bloom filter pages belong to the index pool")

  @volatile private var filter: BloomFilter = _
  private var accessCount = 0 // approximate, like BlockCache's counts
  private val drop: CacheKey => Unit = _ => filter = null

  def testHash(hash: Long): Boolean = {
    var f = filter
    if (f == null || accessCount >= CacheManager.RefreshCount) {
      // As in BlockCache: on a miss the filter is published inside the loader, so that a page evicted
      // by its own insertion is dropped by the callback rather than kept here.
      var loaded: BloomFilter = null
      val bits = manager.getPage(key, _ => {
        val b = load()
        loaded = new BloomFilter(b, BloomFilter.numHashFunctions(expectedEntries, b.length))
        filter = loaded
        b
      }, drop)
      if (loaded == null) {
        f = new BloomFilter(bits, BloomFilter.numHashFunctions(expectedEntries, bits.length))
        filter = f
      } else f = loaded
      accessCount = 0
    }
    accessCount += 1
    f.testHash(hash)
  }

  /** Whether the bits are currently held. */
  def isLoaded: Boolean = filter != null

  override def close(): Unit = {
    manager.invalidPage(key)
    filter = null
  }
}
