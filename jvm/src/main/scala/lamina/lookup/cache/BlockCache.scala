package lamina.lookup.cache

import java.io.Closeable
import java.util.concurrent.atomic.AtomicReferenceArray

import lamina.lookup.io.LocalFileInput

/** Reads the blocks of one open file through the shared [[CacheManager]], and keeps its own references
 *  to the blocks it used so that most accesses skip the shared cache.
 *
 * A file's blocks are numbered up front (a sort file's data blocks by their index entry, a hash file's
 * pages by position): slot `i` of `slotCount` holds block i's reference in an array, with a view of
 * the block made once per load (a parsed block), so that a warm access costs one array read and no
 * cache key is built or hashed. Every [[CacheManager.RefreshCount]] accesses a slot asks the manager
 * again, which keeps a hot block recent there.
 *
 * Invariant: a block referenced here was, when fetched, the manager's page for its key; the manager
 * tells every slot that fetched a page (loaded or found) when the page leaves, and the slot is emptied,
 * so memory held follows the manager's budget, also with several readers of one file (a reference
 * fetched concurrently with its eviction survives at most [[CacheManager.RefreshCount]] accesses, or
 * until its pooled array is reused). Safe for concurrent use.
 */
final class BlockCache(val input: LocalFileInput, val manager: CacheManager, slotCount: Int) extends Closeable {
  private final class PageRef(val key: CacheKey, val page: Page, val view: PageView) {
    // Plain field: a stale or lost count only shifts the next refresh, and a volatile write per
    // access would cost more than the refresh it schedules.
    var accessCount: Int = 0
  }

  private val slots = new AtomicReferenceArray[PageRef](slotCount)

  def path: String = input.path

  /** The view, made by `view`, of the block stored at [offset, offset + length) and held in `slot`;
   *  on a miss the stored bytes become the block as `decode` says. `view` gets the block's file offset.
   *  A slot always holds the same block. The block is cached under a position key, or, when
   *  `pageKeySize` > 0, as page `slot` of the file cut into pages of that size.
   *
   *  A `reusable` block goes into a pooled array, which a later load may reuse while the caller still
   *  reads it: the caller checks [[PageView.isCurrent]] after reading and, if false, discards what it
   *  read and calls again (see [[PageBuffer]]). Other blocks are always current.
   *
   *  `counts` gets a miss when the block is read from the file, else a hit. */
  def getSlot[V <: PageView](slot: Int, offset: Long, length: Int, isIndex: Boolean,
      decode: BlockCache.Decode, view: (Long, Page) => V, pageKeySize: Int = 0, reusable: Boolean = false,
      counts: CacheCounters = CacheCounters.Ignored): V = {
    val ref = slots.get(slot)
    if (ref != null && ref.accessCount < CacheManager.RefreshCount && ref.page.isCurrent) {
      ref.accessCount += 1 // a lost increment only delays the next refresh
      counts.hit()
      ref.view.asInstanceOf[V]
    } else {
      val key =
        if (pageKeySize > 0) CacheKey.forPageIndex(path, pageKeySize, slot)
        else CacheKey.forPosition(path, offset, length, isIndex)
      fetchSlot(slot, key, offset, length, reusable, decode, view, counts)
    }
  }

  private def fetchSlot[V <: PageView](slot: Int, key: CacheKey, offset: Long, length: Int, reusable: Boolean,
      decode: BlockCache.Decode, view: (Long, Page) => V, counts: CacheCounters): V = {
    // On a miss the reference is published inside the loader, before the manager inserts the page:
    // if the insertion evicts the page at once (it exceeds its pool), the removal callback empties
    // the slot. On a hit the same callback is registered with the page, which another reader of the
    // file may have loaded: when the page leaves the cache, every slot holding it is emptied.
    var loaded: PageRef = null
    val page = manager.fetchPage(key,
      _ => {
        val p = decode match {
          case BlockCache.AsStored(check) =>
            val p = if (reusable) manager.bufferPool.take(length) else Page.allocate(length)
            input.readInto(offset, length, p.bytes)
            check(slot, offset, p.bytes, length)
            p
          case BlockCache.Decoded(f) =>
            val allocate: Int => Page = if (reusable) manager.bufferPool.take(_) else Page.allocate(_)
            val stored = allocate(length)
            input.readInto(offset, length, stored.bytes)
            val block = f(offset, stored, allocate)
            // not published anywhere: its array may go straight back to the pool
            if (!(block.bytes eq stored.bytes)) manager.bufferPool.give(stored)
            block
        }
        loaded = new PageRef(key, p, view(offset, p))
        slots.set(slot, loaded)
        p
      }, new BlockCache.SlotRelease(this, slot), _ => loaded.view.derivedBytes)
    val ref =
      if (loaded != null) loaded
      else {
        // A hit in the manager: keep the view already made of the same page, if any. A view is made
        // only of a current page (what it parses at construction, such as an entry count, it keeps):
        // a page recycled since the manager returned it is fetched again.
        val current = slots.get(slot)
        val r =
          if (current != null && (current.page eq page)) current
          else {
            val v =
              try view(offset, page)
              catch { case _: RuntimeException if !page.isCurrent => null.asInstanceOf[V] }
            if (v == null || !page.isCurrent) return fetchSlot(slot, key, offset, length, reusable, decode, view, counts)
            new PageRef(key, page, v)
          }
        r.accessCount = 0
        slots.set(slot, r)
        r
      }
    if (loaded != null) counts.miss() else counts.hit()
    ref.accessCount += 1
    ref.view.asInstanceOf[V]
  }

  /** Empties `slot` if it holds a page cached under `key`: that page has left the manager. Emptying a
   *  slot whose page was loaded again meanwhile only costs a fetch from the manager. */
  private[cache] def release(slot: Int, key: CacheKey): Unit = {
    val ref = slots.get(slot)
    if (ref != null && ref.key == key) slots.compareAndSet(slot, ref, null)
  }

  /** Number of blocks this file currently references. */
  def referencedPages: Int = {
    var n = 0
    var i = 0
    while (i < slotCount) { if (slots.get(i) != null) n += 1; i += 1 }
    n
  }

  /** Invalidates every block of this file that it referenced. Call after the last read of the file. */
  override def close(): Unit = {
    var i = 0
    while (i < slotCount) {
      val ref = slots.getAndSet(i, null)
      if (ref != null) manager.invalidPage(ref.key)
      i += 1
    }
  }
}

object BlockCache {

  /** The removal callback of slot `slot` of `cache`; equal for the same cache and slot, so that a page
   *  fetched again and again through one slot registers it once. */
  private final class SlotRelease(val cache: BlockCache, val slot: Int) extends (CacheKey => Unit) {
    override def apply(key: CacheKey): Unit = cache.release(slot, key)
    override def equals(o: Any): Boolean = o match {
      case r: SlotRelease => (r.cache eq cache) && r.slot == slot
      case _ => false
    }
    override def hashCode: Int = System.identityHashCode(cache) * 31 + slot
  }

  /** How the stored bytes of a block become the cached block. */
  sealed trait Decode

  /** The stored bytes are the block: read into a page (a pooled array for data blocks), which is
   *  cached once `check(slot, fileOffset, bytes, length)` returns (it throws to refuse bytes[0, length),
   *  e.g. on a checksum mismatch). */
  final case class AsStored(check: (Int, Long, Array[Byte], Int) => Unit = NoCheck) extends Decode

  private val NoCheck: (Int, Long, Array[Byte], Int) => Unit = (_, _, _, _) => ()

  /** The block is decoded from its stored bytes: `f(fileOffset, stored, allocate)` gets them in the
   *  page `stored` (from `allocate`, as is every page here: a pooled array for a reusable block) and
   *  returns the block, either in `stored` itself (`stored.truncated`: no copy when the stored bytes
   *  hold the block as it is) or written into `allocate(blockLength)`, `stored` then being dropped. */
  final case class Decoded(f: (Long, Page, Int => Page) => Page) extends Decode
}

/** What a reader makes of a cached block: a parsed block, or the bytes as they are ([[RawPage]]).
 *  `derivedBytes` is the most it holds beyond the block itself (counted against the cache budget
 *  with the block). Whatever a reader read through a view counts only if [[isCurrent]] still holds
 *  afterwards (see [[BlockCache.getSlot]]). */
abstract class PageView(val page: Page) {
  def derivedBytes: Int
  final def isCurrent: Boolean = page.isCurrent
}

/** A block read as it is stored, with nothing derived from it: `bytes[0, length)`. */
final class RawPage(page: Page) extends PageView(page) {
  def bytes: Array[Byte] = page.bytes
  def length: Int = page.length
  override def derivedBytes: Int = 0
}
