package lamina.lookup.hash

import java.io.File
import java.nio.{ByteBuffer, ByteOrder}
import java.util.zip.CRC32C

import lamina.errors.BadInputException
import lamina.lookup.io.{KeyHash, LittleEndian, LocalFileOutput}

/** Lays out and writes the slot region of one key length, given its keys ([[HashKeyBuffer]]): each key by
 * linear probing from its home slot, then the region's pages with their CRC32C.
 *
 * A region is far larger than the caches, so inserting keys straight into it would miss them on
 * almost every key. Instead the region is filled one window of slots at a time (32K slots,
 * which the caches hold): a range of keys is split by home slot into the windows it covers (copied,
 * piece by piece, into a scratch array), each window receives first the keys that ran past the end of
 * the window before it, then its own keys, and is written out whole, in slot order. A key that runs past
 * the end of its window goes on to the next; past the last slot, to slot 0. Any insertion order gives a
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
    pageSize: Int, out: LocalFileOutput, file: File, windowBits: Int = SlotRegionWriter.WindowBits) {
  import HashKeyBuffer.{Ranges, RangeBits}
  import SlotRegionWriter._

  private val len = keys.keyLength
  private val slotSize = section.slotSize
  private val slotCount = section.slotCount
  private val slotsPerPage = section.slotsPerPage(pageSize)
  private val pages = Math.toIntExact(section.pageCount(pageSize))
  private val sums = new Array[Int](pages)
  /** Pages whose CRC an emitter computed as it wrote them whole; the others are read back. */
  private val summed = new Array[Boolean](pages)

  /** Whether the region was laid out as one window (small, or its halves' leftover keys did not fit). */
  var asOne = false

  /** Writes the region at `regionOffset`; returns the CRC32C of each of its pages. */
  def write(): Array[Int] = {
    asOne = !(keys.count >= HashLookupStoreWriter.ParallelMinKeys && inHalves())
    if (asOne) asOneWindow()
    sumUnsummedPages()
    sums
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
    java.util.Arrays.fill(summed, false)
    val w = new Window(Math.toIntExact(slotCount))
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
    val e = new Emitter(0)
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
        val e = new Emitter(h.first.start)
        e.window(h.first)
        e.finish()
      }
      true
    }
  }

  /** One thread's half: its ranges window by window, the first window held back. */
  private final class Half {
    var first: Window = _
    /** Keys that went to their scratch's overflow list. */
    var overflowed = 0L
    /** Keys that ran past the end of the window last filled (at the end: of the half), in the order
     *  they did; they go first into the next window, from its first slot. */
    var carry = new Entries(keys.entryBytes)
    private var nextCarry = new Entries(keys.entryBytes)

    def fill(fromRange: Int, untilRange: Int): Unit = {
      val scratch = new Scratch((fromRange until untilRange).map { r =>
        val windows = windowsOf(rangeStart(r), rangeStart(r + 1))
        segmentRoom(keys.counts(r), windows).toLong * windows
      }.max, keys.entryBytes)
      var w = new Window(1 << windowBits)
      var e: Emitter = null
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
            w = new Window(1 << windowBits)
          } else {
            if (e == null) e = new Emitter(w.start)
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

  /** Slots [start, end) being filled, in an array (empty slots all zero). */
  private final class Window(capacity: Int) {
    val bytes = new Array[Byte](Math.multiplyExact(capacity, slotSize))
    var start = 0L
    var slots = 0

    def reset(from: Long, until: Long): Unit = {
      start = from
      slots = Math.toIntExact(until - from)
      require(slots <= capacity, s"window of $slots slots")
      java.util.Arrays.fill(bytes, 0, slots * slotSize, 0.toByte)
    }

    /** Places the key of the entry at b[at] from slot max(home, start) on; false, with nothing
     *  written, when its probe runs past the window's end. */
    def insert(b: Array[Byte], at: Int, home: Long): Boolean = {
      var i = math.max(0L, home - start)
      while (i < slots) {
        if (tryPlace(b, at, i.toInt)) return true
        i += 1
      }
      false
    }

    /** Places the key of the entry at b[at] from slot `home` on, wrapping from the last slot to the
     *  first (the window is the whole region, which always has a free slot). */
    def insertWrapping(b: Array[Byte], at: Int, home: Long): Unit = {
      var i = home.toInt
      while (!tryPlace(b, at, i)) i = if (i + 1 == slots) 0 else i + 1
    }

    /** Inserts the held entries in order, each from the window's first slot on; false when one runs
     *  past the window's end. */
    def insertAll(entries: Entries): Boolean = {
      var j = 0
      while (j < entries.count) {
        if (!insert(entries.bytes, j * keys.entryBytes, start)) return false
        j += 1
      }
      true
    }

    private def tryPlace(b: Array[Byte], at: Int, i: Int): Boolean = {
      val p = i * slotSize
      if (LittleEndian.getLong(bytes, p + len) == 0) {
        copyEntry(b, at, bytes, p, keys.entryBytes)
        true
      } else {
        if (java.util.Arrays.equals(bytes, p, p + len, b, at, at + len))
          throw new BadInputException(s"Duplicate key ${hex(b, at, len)} in hash lookup file ${file.getPath}")
        false
      }
    }
  }

  /** Entries (key and record offset) of `entryBytes` each, in the order added. */
  private final class Entries(entryBytes: Int) {
    var bytes = new Array[Byte](entryBytes * 16)
    var count = 0

    def add(b: Array[Byte], at: Int): Unit = {
      if ((count + 1) * entryBytes > bytes.length) bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2)
      System.arraycopy(b, at, bytes, count * entryBytes, entryBytes)
      count += 1
    }

    def clear(): Unit = count = 0
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
    val overflow = new Entries(entryBytes)
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
          copyEntry(b, at, entries, to * entryBytes, entryBytes)
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

  /** Writes windows of slots, one after another from slot `from`, in pieces of about [[ChunkBytes]]
   *  from a direct buffer, with the CRC32C of every page it writes whole. */
  private final class Emitter(from: Long) {
    private val chunk = ByteBuffer.allocateDirect(ChunkBytes).order(ByteOrder.LITTLE_ENDIAN)
    private val crc = new CRC32C()
    /** Next slot to write, and slots in the chunk. */
    private var slot = from
    private var chunkSlot = from
    private var used = 0
    /** Page whose CRC is being computed (the first to start at or after `from`), bytes of it fed. */
    private var page = ((from + slotsPerPage - 1) / slotsPerPage).toInt
    private var inPage = 0

    def window(w: Window): Unit = {
      require(w.start == slot, s"window at slot ${w.start}, expected $slot")
      var off = 0
      val end = w.slots * slotSize
      while (off < end) {
        val n = math.min(end - off, ChunkBytes - used)
        chunk.put(used, w.bytes, off, n)
        used += n
        off += n
        if (used == ChunkBytes) flush()
      }
      slot += w.slots
    }

    def finish(): Unit = flush()

    private def flush(): Unit = if (used > 0) {
      // the chunk always ends at a slot boundary: ChunkBytes is a multiple of no slot size, so cut there
      val whole = used - used % slotSize
      val view = chunk.slice(0, whole)
      sumPages(view)
      out.writeAt(regionOffset + chunkSlot * slotSize, chunk.slice(0, whole))
      chunkSlot += whole / slotSize
      val rest = used - whole
      if (rest > 0) chunk.put(0, chunk, whole, rest)
      used = rest
    }

    /** Feeds the page CRCs with `b`, the bytes of the slots from `chunkSlot` on. */
    private def sumPages(b: ByteBuffer): Unit = {
      val pageBytes = slotsPerPage * slotSize
      var off = 0
      val end = b.limit()
      var s = chunkSlot
      while (off < end) {
        val p = (s / slotsPerPage).toInt
        val pageStart = p.toLong * slotsPerPage
        val pageLen = (math.min(slotsPerPage.toLong, slotCount - pageStart) * slotSize).toInt
        val into = ((s - pageStart) * slotSize).toInt
        val n = math.min(end - off, pageLen - into)
        if (page == p) {
          crc.update(b.slice(off, n))
          inPage += n
          if (inPage == pageLen) {
            sums(p) = crc.getValue.toInt
            summed(p) = true
            crc.reset()
            inPage = 0
            page = p + 1
          }
        }
        off += n
        s += n / slotSize
      }
    }
  }

  /** Pages written by two emitters (where one began or ended mid-page): their CRC from the file. */
  private def sumUnsummedPages(): Unit = {
    var p = 0
    while (p < pages) {
      if (!summed(p)) {
        val first = p.toLong * slotsPerPage
        val length = (math.min(slotsPerPage.toLong, slotCount - first) * slotSize).toInt
        sums(p) = out.checksumAt(regionOffset + first * slotSize, length)
      }
      p += 1
    }
  }
}

private[hash] object SlotRegionWriter {
  /** Windows hold up to 2^WindowBits slots: 768 KiB of slots of 16-byte keys, within the caches. In
   *  measurements at 10M keys, 2^15 did better than 2^14 (more windows to split ranges into) and than
   *  2^16 or 2^17 (windows less often in cache). */
  val WindowBits = 15

  /** Entries a window's segment of the scratch has room for beyond a quarter more than its share. */
  private val SegmentSlack = 64

  /** Room of each of `windows` segments for `n` keys. */
  private def segmentRoom(n: Int, windows: Int): Int = {
    val share = n / windows + 1
    share + share / 4 + SegmentSlack
  }

  /** Bytes of slots an emitter gathers before writing them. */
  private val ChunkBytes = 1 << 20

  /** Bits that hold every value from 0 to v (v >= 0). */
  private def bitsFor(v: Long): Int = 64 - java.lang.Long.numberOfLeadingZeros(v)

  /** Copies an entry of `e` bytes: the entries of 8- and 16-byte keys as whole words, no call. */
  private def copyEntry(from: Array[Byte], fromOff: Int, to: Array[Byte], toOff: Int, e: Int): Unit =
    if (e == 24) {
      LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
      LittleEndian.putLong(to, toOff + 8, LittleEndian.getLong(from, fromOff + 8))
      LittleEndian.putLong(to, toOff + 16, LittleEndian.getLong(from, fromOff + 16))
    } else if (e == 16) {
      LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
      LittleEndian.putLong(to, toOff + 8, LittleEndian.getLong(from, fromOff + 8))
    } else System.arraycopy(from, fromOff, to, toOff, e)

  def hex(b: Array[Byte], off: Int, len: Int): String =
    "0x" + b.slice(off, off + math.min(len, 32)).map(x => f"${x & 0xff}%02x").mkString + (if (len > 32) "..." else "")
}
