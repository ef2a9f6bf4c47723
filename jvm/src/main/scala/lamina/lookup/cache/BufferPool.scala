package lamina.lookup.cache

/** The arrays of evicted pages, kept for the next loads: at most `maxBytes` of them.
 *
 * A page read cold costs a read and a new array of its size; a new array's memory is cold, and
 * filling it cost about as much as the read (6 us for 64 KiB here, against 1-2 us to refill an array
 * evicted a moment before). Readers keep using a page they fetched while it is evicted and reused;
 * [[PageBuffer]] says how they find out. Safe for concurrent use.
 */
final class BufferPool(val maxBytes: Long) {
  private val free = new java.util.ArrayList[PageBuffer]()
  private var freeBytes = 0L
  private var reused = 0L

  /** A page of `length` bytes for the caller to fill: a free array that fits it closely (capacity in
   *  [length, length + length / 8 + 64]), at a new generation, or else a new array with a little room
   *  for slightly longer pages; an exact array of its own, never reused, when the pool could not keep
   *  an array that large. */
  def take(length: Int): Page = {
    val buffer = synchronized {
      var best = -1
      var i = 0
      while (i < free.size) {
        val c = free.get(i).capacity
        if (c >= length && c.toLong <= length.toLong + length / 8 + 64 && (best < 0 || c < free.get(best).capacity)) best = i
        i += 1
      }
      if (best < 0) null
      else {
        val b = free.remove(best)
        freeBytes -= b.capacity
        reused += 1
        b
      }
    }
    if (buffer != null) {
      buffer.reuse()
      Page.in(buffer, length)
    } else {
      val capacity = BufferPool.capacityFor(length)
      if (capacity > maxBytes) Page.allocate(length) // the pool could never keep it
      else Page.in(new PageBuffer(new Array[Byte](capacity)), length)
    }
  }

  /** Keeps the array of `page`, which has left the cache, if it was pooled and fits the pool; the
   *  oldest free arrays make room (so arrays of a size no longer read do not stay for good). */
  def give(page: Page): Unit = {
    val b = page.pooledBuffer
    if (b != null && b.capacity <= maxBytes) synchronized {
      while (free.size >= BufferPool.MaxFreeArrays || freeBytes + b.capacity > maxBytes)
        freeBytes -= free.remove(0).capacity
      free.add(b)
      freeBytes += b.capacity
    }
  }

  /** Bytes held in free arrays. */
  def heldBytes: Long = synchronized(freeBytes)

  /** Number of free arrays held. */
  def freeCount: Int = synchronized(free.size)

  /** Number of pages loaded into a reused array since creation. */
  def reuseCount: Long = synchronized(reused)
}

object BufferPool {

  /** Most arrays kept: a steady stream of misses needs a handful, and `take` scans them all. */
  val MaxFreeArrays: Int = 16

  /** Capacity of a new pooled array for a page of `length` bytes: 1/32 more, in whole 64 bytes. */
  def capacityFor(length: Int): Int = {
    val c = length.toLong + length / 32
    math.min((c + 63) & ~63L, Int.MaxValue - 8L).toInt
  }

  /** Bytes a manager's pool keeps, for a cache of `cacheBytes`: an eighth of it, at most 16 MiB. */
  def maxBytesFor(cacheBytes: Long): Long = math.min(cacheBytes / 8, 16L << 20)
}
