package lamina.mergetree

/** The keys a read asks for, one by one: the distinct long forms of a single integral key
 *  ([[KeyOrder.LongKey]]), ascending. A MERGE's source keys reach the target's read so when the
 *  query runs. A sorted run read with them yields only the records of these keys: within a batch the
 *  rows are found by walking the batch's ascending keys and these together, each side leaping ahead
 *  of the other, so that a run whose keys are dense among these is walked row by row and one where
 *  these are sparse costs a few probes per key; and the run stops at its first key above the last.
 *  The merge then neither compares nor copies the records between them. */
final class LongKeys private (val sorted: Array[Long]) extends Serializable {

  /** The records read and left out for these keys, by the readers given this instance
   *  ([[counting]]): the rows of the batches a run decoded that were not these keys, and the records
   *  a run read record by record that were not. */
  @transient var leftOut = 0L

  /** The keys looked up in local lookup files instead of read from a run ([[KeyLookupRun]]), by the
   *  readers given this instance. */
  @transient var lookedUp = 0L

  /** The same keys with a count of their own, for one reader. */
  def counting(): LongKeys = new LongKeys(sorted)

  def size: Int = sorted.length

  /** The indices `[from, to)` of [[sorted]] whose keys lie in `[lower, upper]`. */
  def indicesWithin(lower: Long, upper: Long): (Int, Int) = {
    val from = atOrAbove(lower, 0)
    if (upper == Long.MaxValue) (from, sorted.length)
    else (from, math.max(from, atOrAbove(upper + 1, from)))
  }

  /** The range from the first key to the last (empty when there are none). */
  def range: KeyRange = if (sorted.isEmpty) KeyRange(Long.MaxValue, Long.MinValue) else KeyRange(sorted.head, sorted.last)

  def contains(key: Long): Boolean = java.util.Arrays.binarySearch(sorted, key) >= 0

  /** The positions `i` in `[from, to)` whose `keyAt(i)` is one of these, ascending, into `out`; their
   *  number. `keyAt` must ascend strictly over `[from, to)`. */
  def select(keyAt: Int => Long, from: Int, to: Int, out: Array[Int]): Int = {
    var n = 0
    var i = from
    var k = if (from < to) atOrAbove(keyAt(from), 0) else sorted.length
    while (i < to && k < sorted.length) {
      val a = keyAt(i)
      val b = sorted(k)
      if (a == b) {
        out(n) = i
        n += 1
        i += 1
        k += 1
      } else if (a < b) i = LongKeys.leap(keyAt, i + 1, to, b)
      else k = atOrAbove(a, k + 1)
    }
    n
  }

  /** The first index at or after `from` whose key is at or above `key` (the size if none). */
  private def atOrAbove(key: Long, from: Int): Int = LongKeys.leap(keyAtIndex, from, sorted.length, key)
  private val keyAtIndex: Int => Long = sorted(_)

  /** The records of a run (ascending by key) of these keys: it stops at the first key above the last. */
  def within(records: Iterator[KeyValue], key: KeyValue => Long): Iterator[KeyValue] = {
    if (sorted.isEmpty) Iterator.empty
    else
      records.takeWhile(kv => key(kv) <= sorted.last).filter { kv =>
        val wanted = contains(key(kv))
        if (!wanted) leftOut += 1
        wanted
      }
  }

  /** At most `maxRanges` ranges holding every one of these keys and as few others as that allows:
   *  the gaps between neighbouring keys are cut at the `maxRanges - 1` widest (the first of equal
   *  gaps first). Ascending and disjoint; none when there are no keys. */
  def cover(maxRanges: Int): IndexedSeq[KeyRange] = {
    require(maxRanges > 0, "a cover has one range or more")
    if (sorted.isEmpty) IndexedSeq.empty
    else {
      // gap i lies between key i and key i + 1, its width unsigned (keys ascend, so the difference
      // of any two fits); the widest maxRanges - 1 are kept in a heap whose head is the narrowest kept
      def width(i: Int): Long = sorted(i + 1) - sorted(i)
      val widerFirst: Ordering[Int] = (a, b) => {
        val c = java.lang.Long.compareUnsigned(width(b), width(a))
        if (c != 0) c else Integer.compare(a, b)
      }
      val kept = new java.util.PriorityQueue[Int](maxRanges, widerFirst.reverse)
      var i = 0
      while (i < sorted.length - 1) {
        // neighbouring values leave nothing out between them
        if (width(i) != 1L && maxRanges > 1) {
          kept.add(i)
          if (kept.size > maxRanges - 1) kept.poll()
        }
        i += 1
      }
      val cut = kept.toArray.map(_.asInstanceOf[Int]).sorted
      val starts = 0 +: cut.map(_ + 1)
      val ends = cut :+ (sorted.length - 1)
      starts.indices.map(r => KeyRange(sorted(starts(r)), sorted(ends(r))))
    }
  }

  override def toString: String = s"LongKeys(${sorted.length} keys)"
}

object LongKeys {

  /** The distinct keys of `keys`, in any order. */
  def of(keys: Array[Long]): LongKeys = new LongKeys(distinctAscending(keys.clone()))

  /** The distinct values of `values`, ascending (sorts `values` in place). */
  def distinctAscending(values: Array[Long]): Array[Long] = {
    java.util.Arrays.sort(values)
    var n = 0
    var i = 0
    while (i < values.length) {
      if (n == 0 || values(n - 1) != values(i)) { values(n) = values(i); n += 1 }
      i += 1
    }
    java.util.Arrays.copyOf(values, n)
  }

  /** The first position in `[from, to)` whose `keyAt` is at or above `key` (`to` if none), where
   *  `keyAt` ascends: by doubling steps from `from`, then halving them, so that a near position costs
   *  few probes. */
  private def leap(keyAt: Int => Long, from: Int, to: Int, key: Long): Int = {
    var step = 1
    var lo = from
    var hi = from
    while (hi < to && keyAt(hi) < key) {
      lo = hi + 1
      hi = math.min(to, hi + step)
      step <<= 1
    }
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (keyAt(mid) < key) lo = mid + 1 else hi = mid
    }
    lo
  }
}
