package lamina.lookup.cache

/** What the lookups of one user (a task) found of the pages they needed: a hit is a page already in
 *  memory (its reader's own reference, or the [[CacheManager]]'s cache), a miss a page read from its
 *  local file and decoded (a load of the manager, or a bloom filter a reader keeps itself, read once).
 *  Readers are shared by the tasks of a JVM, so each lookup is given the counters of its caller
 *  ([[lamina.lookup.LookupStoreReader.lookup]]). Not thread-safe: one per task. */
class CacheCounters {
  private var hitCount = 0L
  private var missCount = 0L

  def hit(): Unit = hitCount += 1
  def miss(): Unit = missCount += 1

  def hits: Long = hitCount
  def misses: Long = missCount

  override def toString: String = s"CacheCounters(hits $hits, misses $misses)"
}

object CacheCounters {

  /** Counters that keep nothing: for reads no one counts (iterations, tests), safe to share. */
  val Ignored: CacheCounters = new CacheCounters {
    override def hit(): Unit = ()
    override def miss(): Unit = ()
  }
}
