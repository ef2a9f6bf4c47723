package lamina.lookup.cache

import java.io.Closeable
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicReferenceArray

import lamina.lookup.io.LocalFileInput

/** Reads pages of one open file through the shared [[CacheManager]], and keeps its own references
 *  to the pages it used so that most accesses skip the shared cache.
 *
 * Pages are addressed by key ([[getPage]], [[getBlock]]) or, for a file whose blocks are numbered up
 * front, by slot ([[getSlot]]): slot `i` of `slotCount` holds block i's reference in an array, with a
 * view of the block made once per load (a parsed block), so that a warm access costs one array read
 * and no key is built or hashed.
 *
 * Invariant: a page referenced here was, when fetched, the manager's page for its key; the manager's
 * removal callback drops the reference, so memory held follows the manager's budget (a reference
 * fetched concurrently with its eviction survives at most [[CacheManager.RefreshCount]] accesses).
 * Safe for concurrent use.
 */
final class BlockCache(val input: LocalFileInput, val manager: CacheManager, slotCount: Int = 0) extends Closeable {
  private final class PageRef(val key: CacheKey, val bytes: Array[Byte], val view: AnyRef) {
    // Plain field: a stale or lost count only shifts the next refresh, and a volatile write per
    // access would cost more than the refresh it schedules.
    var accessCount: Int = 0
  }

  private val pages = new ConcurrentHashMap[CacheKey, PageRef]()
  private val slots = new AtomicReferenceArray[PageRef](slotCount)
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
        loaded = new PageRef(key, load(), null)
        pages.put(key, loaded)
        loaded.bytes
      }, dropRef)
      if (loaded == null) {
        ref = new PageRef(key, bytes, null)
        pages.put(key, ref)
      } else ref = loaded
    }
    ref.accessCount += 1 // a lost increment only delays the next refresh
    ref.bytes
  }

  /** The view, made by `view`, of the block stored at [offset, offset + length) and held in `slot`;
   *  the stored bytes pass through `decode` on a miss. Both functions get the block's file offset.
   *  A slot always holds the same block. */
  def getSlot[V <: PageView](slot: Int, offset: Long, length: Int, isIndex: Boolean,
      decode: (Long, Array[Byte]) => Array[Byte], view: (Long, Array[Byte]) => V): V = {
    val ref = slots.get(slot)
    if (ref != null && ref.accessCount < CacheManager.RefreshCount) {
      ref.accessCount += 1 // a lost increment only delays the next refresh
      ref.view.asInstanceOf[V]
    } else fetchSlot(slot, offset, length, isIndex, decode, view)
  }

  private def fetchSlot[V <: PageView](slot: Int, offset: Long, length: Int, isIndex: Boolean,
      decode: (Long, Array[Byte]) => Array[Byte], view: (Long, Array[Byte]) => V): V = {
    val key = CacheKey.forPosition(path, offset, length, isIndex)
    // As in getPage: a loaded page is published inside the loader, and its removal clears the slot
    // only if the slot still holds it.
    var loaded: PageRef = null
    val bytes = manager.getPage(key, _ => {
      val b = decode(offset, input.read(offset, length))
      loaded = new PageRef(key, b, view(offset, b))
      slots.set(slot, loaded)
      b
    }, _ => { val l = loaded; if (l != null) slots.compareAndSet(slot, l, null) },
      _ => loaded.view.asInstanceOf[PageView].derivedBytes)
    val ref =
      if (loaded != null) loaded
      else {
        val current = slots.get(slot)
        val r = if (current != null && (current.bytes eq bytes)) current else new PageRef(key, bytes, view(offset, bytes))
        r.accessCount = 0
        slots.set(slot, r)
        r
      }
    ref.accessCount += 1
    ref.view.asInstanceOf[V]
  }

  /** Number of pages this file currently references. */
  def referencedPages: Int = {
    var n = pages.size()
    var i = 0
    while (i < slotCount) { if (slots.get(i) != null) n += 1; i += 1 }
    n
  }

  /** Invalidates every page of this file that it referenced. Call after the last read of the file. */
  override def close(): Unit = {
    val keys = new java.util.ArrayList[CacheKey](pages.keySet())
    var i = 0
    while (i < slotCount) {
      val ref = slots.getAndSet(i, null)
      if (ref != null) keys.add(ref.key)
      i += 1
    }
    keys.forEach(k => manager.invalidPage(k))
    pages.clear()
  }
}

/** What a reader makes of a cached page: a parsed block. `derivedBytes` is the most it holds beyond the
 *  page itself (counted against the cache budget with the page). */
trait PageView {
  def derivedBytes: Int
}
