package lamina.lookup.cache

import java.io.Closeable
import java.util.concurrent.ConcurrentHashMap

import lamina.lookup.io.LocalFileInput

/** Reads pages of one open file through the shared [[CacheManager]], and keeps its own references
 *  to the pages it used so that most accesses skip the shared cache.
 *
 * Invariant: a page referenced here was, when fetched, the manager's page for its key; the manager's
 * removal callback drops the reference, so memory held follows the manager's budget (a reference
 * fetched concurrently with its eviction survives at most [[CacheManager.RefreshCount]] accesses).
 * Safe for concurrent use.
 */
final class BlockCache(val input: LocalFileInput, val manager: CacheManager) extends Closeable {
  private final class PageRef(val bytes: Array[Byte]) {
    // Plain field: a stale or lost count only shifts the next refresh, and a volatile write per
    // access would cost more than the refresh it schedules.
    var accessCount: Int = 0
  }

  private val pages = new ConcurrentHashMap[CacheKey, PageRef]()
  private val dropRef: CacheKey => Unit = k => pages.remove(k)

  def path: String = input.path

  /** The block stored at [offset, offset + length), passed through `decode` on a miss. */
  def getBlock(offset: Long, length: Int, isIndex: Boolean, decode: Array[Byte] => Array[Byte]): Array[Byte] =
    getPage(CacheKey.forPosition(path, offset, length, isIndex), () => decode(input.read(offset, length)))

  /** The page under `key`, computed by `load` on a miss. */
  def getPage(key: CacheKey, load: () => Array[Byte]): Array[Byte] = {
    var ref = pages.get(key)
    if (ref == null || ref.accessCount >= CacheManager.RefreshCount) {
      // On a miss the reference is registered inside the loader, before the manager inserts the page:
      // if the insertion evicts the page at once (it exceeds its pool), the removal callback drops it.
      var loaded: PageRef = null
      val bytes = manager.getPage(key, _ => {
        loaded = new PageRef(load())
        pages.put(key, loaded)
        loaded.bytes
      }, dropRef)
      if (loaded == null) {
        ref = new PageRef(bytes)
        pages.put(key, ref)
      } else ref = loaded
    }
    ref.accessCount += 1 // a lost increment only delays the next refresh
    ref.bytes
  }

  /** Number of pages this file currently references. */
  def referencedPages: Int = pages.size()

  /** Invalidates every page of this file that it referenced. Call after the last read of the file. */
  override def close(): Unit = {
    val keys = new java.util.ArrayList[CacheKey](pages.keySet())
    keys.forEach(k => manager.invalidPage(k))
    pages.clear()
  }
}
