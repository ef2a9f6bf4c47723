package lamina.lookup.cache

import java.util.concurrent.atomic.AtomicLong

import com.github.benmanes.caffeine.cache.{Cache, Caffeine, RemovalCause}

import lamina.errors.BadInputException
import lamina.lookup.LookupOptions

/** Process-wide cache of decoded pages, bounded by bytes held.
 *
 * Invariant: after maintenance (which runs on the calling thread, see `cleanUp`), each pool holds at
 * most its share of `maxMemoryBytes`, counted as the length of the cached arrays plus the bytes their
 * readers may derive from them (a block's search index, see [[PageView]]).
 *
 * The budget is split into an index pool (`highPriorityPoolRatio` of it: index blocks, bloom filters,
 * hash slots) and a data pool (the rest), so scans over data cannot evict the pages that locate data.
 * With ratio 0 both kinds share one pool. Eviction and removal callbacks run synchronously on the
 * thread whose insertion triggered them: no background threads, deterministic tests.
 *
 * A page larger than its pool would be evicted by its own insertion and loaded again on every use. The
 * structures a reader needs on every lookup (a sort file's index block and bloom filter) are therefore
 * kept by their reader instead when they do not fit (see [[fits]]), beyond the budget, and counted in
 * [[heldBeyondBudgetBytes]].
 */
final class CacheManager(val maxMemoryBytes: Long, val highPriorityPoolRatio: Double) {
  if (maxMemoryBytes < 0)
    throw new BadInputException(s"Cache size must be at least 0 bytes, got $maxMemoryBytes")
  if (!(highPriorityPoolRatio >= 0 && highPriorityPoolRatio < 1))
    throw new BadInputException(
      s"The high priority pool ratio should be in the range [0, 1), got $highPriorityPoolRatio")

  val indexPoolBytes: Long = (maxMemoryBytes * highPriorityPoolRatio).toLong
  val dataPoolBytes: Long = if (highPriorityPoolRatio == 0) maxMemoryBytes else maxMemoryBytes - indexPoolBytes

  /** Arrays of pages that left the cache (those that readers validate: sort data blocks, hash pages),
   *  for loads to fill again: at most an eighth of the budget (16 MiB at most), held beyond it. */
  val bufferPool: BufferPool = new BufferPool(BufferPool.maxBytesFor(maxMemoryBytes))

  private val loads = new AtomicLong()
  private val dataPool: Cache[CacheKey, CacheManager.CachedPage] = CacheManager.pool(dataPoolBytes, bufferPool)
  private val indexPool: Cache[CacheKey, CacheManager.CachedPage] =
    if (highPriorityPoolRatio == 0) dataPool else CacheManager.pool(indexPoolBytes, bufferPool)

  private val beyondBudget = new AtomicLong()

  private def poolOf(key: CacheKey) = if (key.isIndex) indexPool else dataPool

  /** Whether a page of `weight` bytes (with what readers derive from it) can stay in the pool of index
   *  (`isIndex`) or data pages: a heavier one is evicted as soon as it is inserted. */
  def fits(isIndex: Boolean, weight: Long): Boolean =
    weight <= (if (isIndex && (indexPool ne dataPool)) indexPoolBytes else dataPoolBytes)

  /** Records `bytes` a reader keeps itself, beyond the budget, because they do not fit their pool ([[fits]]);
   *  the reader gives them back with a negative `bytes` when it closes. */
  def holdBeyondBudget(bytes: Long): Unit = beyondBudget.addAndGet(bytes)

  /** Bytes that open readers keep beyond the budget: index blocks and bloom filters larger than their pool. */
  def heldBeyondBudgetBytes: Long = beyondBudget.get()

  /** The page under `key`, loaded with `loader` on a miss (once, even when threads race).
   *  `onRemoval` runs when the page leaves the cache (evicted or invalidated), whether this call loaded
   *  it or found it cached: every caller that may keep a reference to the page is told, so that none
   *  holds it beyond the budget. A listener equal to one already registered for the page is told once. */
  def getPage(key: CacheKey, loader: CacheKey => Array[Byte], onRemoval: CacheKey => Unit): Array[Byte] =
    fetchPage(key, k => Page.of(loader(k)), onRemoval, CacheManager.NoDerivedBytes).bytes

  /** As above for a [[Page]], which may be in a pooled array (see [[bufferPool]]): when it leaves the
   *  cache its array goes back to the pool. `derivedBytes(page)`, asked once after a load, is what
   *  readers may derive from the page and hold while it is cached: it counts against the budget with
   *  the page. */
  def fetchPage(key: CacheKey, loader: CacheKey => Page, onRemoval: CacheKey => Unit,
      derivedBytes: Page => Int): Page = {
    val pool = poolOf(key)
    val cached = pool.get(key,
      k => {
        loads.incrementAndGet()
        val page = loader(k)
        if (page == null) throw new IllegalStateException(s"Loader returned null for $k")
        new CacheManager.CachedPage(page, page.heldBytes + derivedBytes(page), onRemoval)
      })
    // the loader's own listener is already the page's (listen refuses it): only finders register
    if (cached.listen(onRemoval) && (pool.policy().getIfPresentQuietly(key) ne cached))
      onRemoval(key) // removed meanwhile, perhaps before the listener was added: told here instead
    cached.page
  }

  def invalidPage(key: CacheKey): Unit = poolOf(key).invalidate(key)

  /** Number of pages loaded (cache misses) since creation. */
  def loadCount: Long = loads.get()

  /** Runs pending maintenance, then returns the bytes held by the index pool (0 if shared). */
  def indexPoolUsedBytes: Long = if (indexPool eq dataPool) 0L else usedBytes(indexPool)

  /** Runs pending maintenance, then returns the bytes held by the data (or shared) pool. */
  def dataPoolUsedBytes: Long = usedBytes(dataPool)

  def cleanUp(): Unit = {
    dataPool.cleanUp()
    indexPool.cleanUp()
  }

  private def usedBytes(c: Cache[CacheKey, CacheManager.CachedPage]): Long = {
    c.cleanUp()
    c.policy().eviction().get().weightedSize().getAsLong
  }

  override def toString: String =
    s"CacheManager(index pool $indexPoolBytes bytes, data pool $dataPoolBytes bytes, shared=${indexPool eq dataPool})"
}

object CacheManager {

  /** A manager sized by `lookup.cache-max-memory-size` and `lookup.cache.high-priority-pool-ratio`. */
  def fromOptions(options: LookupOptions): CacheManager =
    new CacheManager(options.cacheMaxMemorySize, options.highPriorityPoolRatio)

  /** A reader refreshes a page's recency in the manager once every this many accesses it served from
   *  its own reference: touching the shared cache on every access costs, never touching it lets a hot
   *  page age out. */
  val RefreshCount: Int = 10

  private val NoDerivedBytes: Page => Int = _ => 0

  /** A cached page and who to tell when it leaves: the caller that loaded it, and callers that found
   *  it (kept only once a second one comes, as most pages have one reader). */
  private final class CachedPage(val page: Page, val weight: Int, loadedBy: CacheKey => Unit) {
    @volatile private var others: java.util.Set[CacheKey => Unit] = _

    /** Registers `l` unless it is the loader's listener; true when newly registered. */
    def listen(l: CacheKey => Unit): Boolean = l != loadedBy && {
      var o = others
      if (o == null) synchronized {
        if (others == null) others = java.util.concurrent.ConcurrentHashMap.newKeySet[CacheKey => Unit]()
        o = others
      }
      o.add(l)
    }

    def removed(k: CacheKey): Unit = {
      loadedBy(k)
      val o = others
      if (o != null) o.forEach(l => l(k))
    }
  }

  private def pool(maxWeight: Long, buffers: BufferPool): Cache[CacheKey, CachedPage] =
    Caffeine.newBuilder()
      .maximumWeight(maxWeight)
      .weigher[CacheKey, CachedPage]((_: CacheKey, v: CachedPage) => v.weight)
      .executor((r: Runnable) => r.run())
      .removalListener[CacheKey, CachedPage]((k: CacheKey, v: CachedPage, _: RemovalCause) =>
        if (k != null && v != null) {
          v.removed(k)
          buffers.give(v.page)
        })
      .build[CacheKey, CachedPage]()
}
