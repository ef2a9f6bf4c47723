package lamina.lookup.bloom

import java.io.Closeable

import lamina.lookup.cache.{CacheCounters, CacheKey, CacheManager}

/** A bloom filter whose bits live in a file and are read through the index pool of a [[CacheManager]]:
 *  loaded on first use, dropped when the manager evicts them, loaded again on demand.
 *
 * Bits of `numBytes` that the index pool cannot hold (see [[CacheManager.fits]]) would be evicted as
 * soon as loaded and read again for every key tested: those are kept here instead, from their first use
 * until [[close]], beyond the manager's budget and counted in [[CacheManager.heldBeyondBudgetBytes]].
 *
 * `load` reads and verifies the stored bits (the bytes of length `numBytes` at `key`).
 * Invariant: `filter`, when set, wraps the bytes the manager held under `key` when they were fetched,
 * or the bits held here. Safe for concurrent use; not to be used after `close`.
 */
final class FileBasedBloomFilter(
    manager: CacheManager,
    key: CacheKey,
    numBytes: Int,
    expectedEntries: Long,
    load: () => Array[Byte])
  extends Closeable {
  require(key.isIndex, "bloom filter pages belong to the index pool")

  /** Whether the bits are kept here rather than in the manager, which cannot hold them. */
  val heldBeyondBudget: Boolean = !manager.fits(isIndex = true, numBytes)

  @volatile private var filter: BloomFilter = _
  private var accessCount = 0 // approximate, like BlockCache's counts
  private var heldBytes = 0L // guarded by this
  private val drop: CacheKey => Unit = _ => filter = null

  /** Whether the filter may hold `hash`; `counts` gets a miss when the bits are read from the file, else a hit. */
  def testHash(hash: Long, counts: CacheCounters = CacheCounters.Ignored): Boolean = {
    var f = filter
    if (f == null || (accessCount >= CacheManager.RefreshCount && !heldBeyondBudget)) {
      f = if (heldBeyondBudget) loadHeld(counts) else fetch(counts)
      accessCount = 0
    } else counts.hit()
    accessCount += 1
    f.testHash(hash)
  }

  private def fetch(counts: CacheCounters): BloomFilter = {
    // As in BlockCache: on a miss the filter is published inside the loader, so that a page evicted
    // by its own insertion is dropped by the callback rather than kept here.
    var loaded: BloomFilter = null
    val bits = manager.getPage(key,
      _ => {
        val b = load()
        loaded = new BloomFilter(b, BloomFilter.numHashFunctions(expectedEntries, b.length))
        filter = loaded
        b
      }, drop)
    if (loaded != null) {
      counts.miss()
      loaded
    } else {
      counts.hit()
      val f = new BloomFilter(bits, BloomFilter.numHashFunctions(expectedEntries, bits.length))
      filter = f
      f
    }
  }

  private def loadHeld(counts: CacheCounters): BloomFilter = synchronized {
    if (filter != null) counts.hit()
    else {
      counts.miss()
      val b = load()
      filter = new BloomFilter(b, BloomFilter.numHashFunctions(expectedEntries, b.length))
      heldBytes = b.length
      manager.holdBeyondBudget(heldBytes)
    }
    filter
  }

  /** Whether the bits are currently held. */
  def isLoaded: Boolean = filter != null

  override def close(): Unit = {
    if (heldBeyondBudget) synchronized {
      manager.holdBeyondBudget(-heldBytes)
      heldBytes = 0
    }
    else manager.invalidPage(key)
    filter = null
  }
}
