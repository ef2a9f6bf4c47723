package lamina.lookup.hash

import java.io.File

import lamina.lookup.io.{KeyHash, LocalFileOutput}

/** Lays out and writes the slot region of one key length, given its keys ([[HashKeyBuffer]]): each key by
 * linear probing from its home slot, then the region's pages with their CRC32C.
 *
 * A region is far larger than the caches, so inserting keys straight into it would miss them on
 * almost every key. Instead the region is filled one window of slots at a time (32K slots, fewer
 * for long keys: at most 1 MiB, which the caches hold): a range of keys is split by home slot into
 * the windows it covers (copied, window by window, into a scratch array), each window receives first
 * the keys that ran past the end of the window before it, then its own keys, and is written out whole,
 * in slot order. A key that runs past the end of its window goes on to the next; past the last slot,
 * to slot 0. Any insertion order gives a
 * valid linear-probing table; this one is fixed by the keys and the order they were put in, so the
 * same keys put in the same order give the same bytes.
 *
 * Regions of at least [[HashLookupStoreWriter.ParallelMinKeys]] keys are filled by two threads, one per
 * half (ranges 0-7 and 8-15: the home slots of the lower half of hashes are exactly the lower half of
 * the slots). Each holds back the first window of its half: keys that run past the end of the lower
 * half go into the upper half's first window, and keys that run past the last slot into the lower
 * half's first window, once both threads are done. Should such keys not fit in that window (keys
 * crowding into few home slots), the region is laid out again as one window. Smaller regions are one
 * window from the start.
 */
private[hash] final class SlotRegionWriter(keys: HashKeyBuffer, section: HashSection, regionOffset: Long,
    pageSize: Int, out: LocalFileOutput, file: File, maxWindowBits: Int = SlotRegionWriter.WindowBits) {
  import HashKeyBuffer.{Ranges, RangeBits}
  import SlotRegionWriter._

  private val len = keys.keyLength
  private val slotCount = section.slotCount

  /** Windows hold 2^windowBits slots: fewer for long keys, so that a window stays within the caches. */
  private val windowBits =
    math.min(maxWindowBits, 31 - Integer.numberOfLeadingZeros(math.max(1, MaxWindowBytes / section.slotSize)))
  private val pages = new SlotPages(section, pageSize, regionOffset, out)

  /** Whether the region was laid out as one window (small, or its halves' leftover keys did not fit). */
  var asOne = false

  /** Writes the region at `regionOffset`; returns the CRC32C of each of its pages. */
  def write(): Array[Int] = {
    asOne = !(keys.count >= HashLookupStoreWriter.ParallelMinKeys && inHalves())
    if (asOne) asOneWindow()
    pages.checksums()
  }

  /** Keys that crowded past their window's segment of the scratch (see [[Scratch]]): none in the
   *  usual case. */
  var overflowCount = 0L

  /** Windows that slots [from, until) are filled in. */
  private def windowsOf(from: Long, until: Long): Int =
    Math.toIntExact(math.max(1L, (until - from + (1L << windowBits) - 1) >>> windowBits))

  /** The home slot ranges start at: range r's keys have homes in [rangeStart(r), rangeStart(r + 1)]. */
  private def rangeStart(r: Int): Long = if (r == Ranges) slotCount else section.homeSlot(r.toLong << (64 - RangeBits))

  /** The whole region as one window: every key inserted, range after range, in the order put. */
  private def asOneWindow(): Unit = {
    pages.restart()
    val w = new SlotWindow(Math.toIntExact(slotCount), len, file)
    w.reset(0, slotCount)
    var r = 0
    while (r < Ranges) {
      val b = keys.arrays(r)
      var i = 0
      while (i < keys.counts(r)) {
        val at = keys.entryAt(r, i)
        w.insertWrapping(b, at, section.homeSlot(KeyHash.hash64(b, at, len)))
        i += 1
      }
      r += 1
    }
    val e = new pages.Emitter(0)
    e.window(w)
    e.finish()
  }

  /** Fills the two halves at once; false, with nothing committed to the region, where the keys left
   *  over at the end of a half do not fit in the window held back for them. */
  private def inHalves(): Boolean = {
    val lower, upper = new Half
    HashLookupStoreWriter.inParallel(lower.fill(0, Ranges / 2), upper.fill(Ranges / 2, Ranges))
    overflowCount = lower.overflowed + upper.overflowed
    // keys that ran past the lower half start the upper one; keys past the last slot start the lower one
    if (!upper.first.insertAll(lower.carry) || !lower.first.insertAll(upper.carry)) false
    else {
      Seq(lower, upper).foreach { h =>
        val e = new pages.Emitter(h.first.start)
        e.window(h.first)
        e.finish()
      }
      true
    }
  }

  /** One thread's half: its ranges window by window, the first window held back. */
  private final class Half {
    var first: SlotWindow = _

    /** Keys that went to their scratch's overflow list. */
    var overflowed = 0L

    /** Keys that ran past the end of the window last filled (at the end: of the half), in the order
     *  they did; they go first into the next window, from its first slot. */
    var carry = new SlotEntries(keys.entryBytes)
    private var nextCarry = new SlotEntries(keys.entryBytes)

    def fill(fromRange: Int, untilRange: Int): Unit = {
      val scratch = new Scratch(
        (fromRange until untilRange).map { r =>
          val windows = windowsOf(rangeStart(r), rangeStart(r + 1))
          segmentRoom(keys.counts(r), windows).toLong * windows
        }.max, keys.entryBytes)
      var w = new SlotWindow(1 << windowBits, len, file)
      var e: pages.Emitter = null
      var r = fromRange
      while (r < untilRange) {
        val lo = rangeStart(r)
        val end = rangeStart(r + 1)
        val windows = windowsOf(lo, end)
        scratch.split(r, lo, windows)
        var k = 0
        while (k < windows) {
          val ws = lo + (k.toLong << windowBits)
          w.reset(ws, math.min(ws + (1L << windowBits), end))
          var j = 0
          while (j < carry.count) {
            if (!w.insert(carry.bytes, j * keys.entryBytes, ws)) nextCarry.add(carry.bytes, j * keys.entryBytes)
            j += 1
          }
          var i = scratch.segments(k)
          while (i < scratch.segments(windows + k)) {
            val at = i * keys.entryBytes
            if (!w.insert(scratch.entries, at, scratch.homes(i))) nextCarry.add(scratch.entries, at)
            i += 1
          }
          i = 0
          while (i < scratch.overflow.count) {
            val at = i * keys.entryBytes
            if (scratch.overflowWindows(i) == k && !w.insert(scratch.overflow.bytes, at, scratch.overflowHomes(i)))
              nextCarry.add(scratch.overflow.bytes, at)
            i += 1
          }
          val t = carry
          carry = nextCarry
          nextCarry = t
          nextCarry.clear()
          if (first == null) {
            first = w
            w = new SlotWindow(1 << windowBits, len, file)
          } else {
            if (e == null) e = new pages.Emitter(w.start)
            e.window(w)
          }
          k += 1
        }
        r += 1
      }
      if (e != null) e.finish()
      overflowed = scratch.overflowed
    }
  }

  /** A thread's copy of one range's entries at a time, split by the window their home slot is in:
   *  each window gets a segment with room for a quarter more than its share of the range's keys (in
   *  one pass, without counting first); keys beyond that, which a window receives only when keys
   *  crowd into few home slots, go to an overflow list, after the segment in arrival order. */
  private final class Scratch(room: Long, entryBytes: Int) {
    var overflowed = 0L
    val entries = new Array[Byte](Math.toIntExact(room * entryBytes))
    val homes = new Array[Long](room.toInt)

    /** Where window k's segment starts (k) and ends (windows + k). */
    var segments = new Array[Int](0)
    val overflow = new SlotEntries(entryBytes)
    var overflowHomes = new Array[Long](16)
    var overflowWindows = new Array[Int](16)

    /** Copies range r's entries here, window by window, in arrival order within a window. */
    def split(r: Int, lo: Long, windows: Int): Unit = {
      val n = keys.counts(r)
      val b = keys.arrays(r)
      val cap = segmentRoom(n, windows)
      if (segments.length < 2 * windows) segments = new Array[Int](2 * windows)
      var k = 0
      while (k < windows) {
        segments(k) = k * cap
        segments(windows + k) = k * cap
        k += 1
      }
      overflow.clear()
      var i = 0
      while (i < n) {
        val at = keys.entryAt(r, i)
        val home = section.homeSlot(KeyHash.hash64(b, at, len))
        // a home on the next range's first slot belongs to the last window, whose end it is past
        val k = math.min(((home - lo) >>> windowBits).toInt, windows - 1)
        val to = segments(windows + k)
        if (to < (k + 1) * cap) {
          segments(windows + k) = to + 1
          HashKeyBuffer.copyEntry(b, at, entries, to * entryBytes, entryBytes)
          homes(to) = home
        } else overflowed(b, at, home, k)
        i += 1
      }
    }

    private def overflowed(b: Array[Byte], at: Int, home: Long, window: Int): Unit = {
      val j = overflow.count
      if (j == overflowHomes.length) {
        overflowHomes = java.util.Arrays.copyOf(overflowHomes, j * 2)
        overflowWindows = java.util.Arrays.copyOf(overflowWindows, j * 2)
      }
      overflow.add(b, at)
      overflowHomes(j) = home
      overflowWindows(j) = window
      overflowed += 1
    }
  }
}

private[hash] object SlotRegionWriter {

  /** Windows hold up to 2^WindowBits slots: 768 KiB of slots of 16-byte keys, within the caches. In
   *  measurements at 10M keys, 2^15 did better than 2^14 (more windows to split ranges into) and than
   *  2^16 or 2^17 (windows less often in cache). */
  val WindowBits = 15

  /** Most bytes of a window (2^15 slots of 16-byte keys take 768 KiB): longer keys get fewer slots. */
  private val MaxWindowBytes = 1 << 20

  /** Entries a window's segment of the scratch has room for beyond a quarter more than its share. */
  private val SegmentSlack = 64

  /** Room of each of `windows` segments for `n` keys. */
  private def segmentRoom(n: Int, windows: Int): Int = {
    val share = n / windows + 1
    share + share / 4 + SegmentSlack
  }
}
