package lamina.lookup.hash

import java.io.File
import java.util.zip.CRC32C

import scala.collection.mutable

import lamina.errors.BadInputException
import lamina.lookup.LookupStoreWriter
import lamina.lookup.io.{KeyHash, LittleEndian, LocalFileOutput, VarInt}

/** Writes a hash lookup file (format: docs/format/hash-lookup-store.md), in the manner of PalDB.
 *
 * Values stream to the data section as they arrive; keys and their record offsets stay in memory,
 * grouped by key length, until `finish` lays out one open-addressing slot array per key length.
 * Keys may come in any order; a duplicate key is rejected at `finish`.
 * Invariant: every record offset held is the start of a complete record already written.
 */
final class HashLookupStoreWriter(file: File, expectedEntries: Long = 0) extends LookupStoreWriter {
  import HashLookupStoreWriter._

  private val out = new LocalFileOutput(file)
  out.write(HashFileHeader.encode())
  private val sections = mutable.TreeMap.empty[Int, KeyBuffer]
  /** A record being assembled: varint, and a small value and the CRC. */
  private val record = new Array[Byte](VarInt.MaxBytes + SmallValue + LittleEndian.IntBytes)
  private val crcBytes = new Array[Byte](LittleEndian.IntBytes)
  private val crc = new CRC32C()
  private var recordCount = 0L
  /** Buffer of the previous key's length: consecutive keys usually share a length. */
  private var lastKeys: KeyBuffer = _
  private var finished = -1L
  private var closed = false

  override def put(key: Array[Byte], value: Array[Byte]): Unit = {
    if (closed) throw new IllegalStateException(s"Lookup file ${file.getPath} is already finished")
    if (key.length > HashSection.MaxKeyLength)
      throw new BadInputException(s"Key of ${key.length} bytes is longer than the ${HashSection.MaxKeyLength} " +
        s"bytes a hash lookup file supports (${file.getPath})")
    val offset = out.position
    val headerLen = VarInt.write(record, 0, value.length)
    crc.reset()
    crc.update(key)
    if (value.length <= SmallValue) {
      // the record in one piece: varint, value, CRC
      System.arraycopy(value, 0, record, headerLen, value.length)
      val len = headerLen + value.length
      crc.update(record, 0, len)
      LittleEndian.putInt(record, len, crc.getValue.toInt)
      out.write(record, 0, len + LittleEndian.IntBytes)
    } else {
      crc.update(record, 0, headerLen)
      crc.update(value)
      LittleEndian.putInt(crcBytes, 0, crc.getValue.toInt)
      out.write(record, 0, headerLen)
      out.write(value)
      out.write(crcBytes)
    }
    if (lastKeys == null || lastKeys.keyLength != key.length)
      lastKeys = sections.getOrElseUpdate(key.length,
        // the first key length is usually the only one: room for the expected keys up front
        new KeyBuffer(key.length, if (sections.isEmpty) math.min(expectedEntries, MaxPresizedBytes / (key.length + 8)).toInt else 16))
    lastKeys.add(key, offset)
    recordCount += 1
  }

  override def finish(): Long = {
    if (closed && finished < 0)
      throw new IllegalStateException(s"Writing lookup file ${file.getPath} failed; it is incomplete")
    if (!closed) {
      closed = true
      try {
        val dataEnd = out.position
        val written = sections.values.map(writeSection).toSeq
        val tableOffset = out.position
        val table = HashSection.encodeTable(written)
        out.write(table)
        out.write(HashFooter(tableOffset, table.length, recordCount, dataEnd).encode())
        finished = out.position
      } finally {
        sections.clear()
        out.close()
      }
    }
    finished
  }

  private def writeSection(keys: KeyBuffer): HashSection = {
    val len = keys.keyLength
    val slotSize = HashSection.slotSize(len)
    val slotCount = math.max(keys.count + 1L, math.ceil(keys.count / LoadFactor).toLong)
    if (slotCount * slotSize > Int.MaxValue - 8)
      throw new BadInputException(s"Too many keys of $len bytes (${keys.count}) for one hash lookup file " +
        s"(${file.getPath}): the slots would exceed 2 GiB")
    val region = new Array[Byte]((slotCount * slotSize).toInt)
    // Keys go in by ascending home slot, so the writes sweep the region instead of landing at random
    // (colliding keys may then sit in another order than they arrived; readers probe either way).
    val sorted = byHomeSlot(keys, slotCount)
    val table = new SlotTable(region, len, slotCount, sorted, file)
    if (keys.count < ParallelMinKeys) {
      table.insert(0, keys.count)
      table.checksum(0, slotCount)
    } else {
      // Two threads fill the two halves of the slot region, split where the upper half of the home
      // ranges starts; a key whose probe would cross into the other half (or wrap around the end)
      // waits, and goes in afterwards, in the order of the keys.
      val middle = (slotCount + 1) / 2
      val firstUpper = sorted.upperStart
      val deferredLower, deferredUpper = new mutable.ArrayBuffer[Int]
      inParallel(table.insertBelow(0, firstUpper, middle, deferredLower),
        table.insertBelow(firstUpper, keys.count, slotCount, deferredUpper))
      (deferredLower ++ deferredUpper).foreach(i => table.insert(i, i + 1))
      inParallel(table.checksum(0, middle), table.checksum(middle, slotCount))
    }
    val section = HashSection(len, keys.count, slotCount, out.position)
    out.write(region)
    section
  }
}

object HashLookupStoreWriter {

  /** Keys (back to back), record offsets and home slots, in ascending order of home slot range;
   *  `upperStart` is the index of the first key of the upper half of the ranges (home slot at least
   *  ceil(slotCount / 2)). */
  private final class SortedKeys(val keys: Array[Byte], val offsets: Array[Long], val home: Array[Long],
      val upperStart: Int)

  /** Ranges of home slots the keys are sorted by: few enough that scattering keys into them writes to
   *  a handful of cache lines at a time, many enough that inserting one range touches a small window
   *  of the slot region. */
  private val HomeRanges = 1024

  /** Sections with at least this many keys are sorted, laid out and checksummed by two threads. */
  val ParallelMinKeys: Int = 1 << 16

  /** Runs `a` here and `b` on a new thread at once; returns when both are done, with the first error. */
  private def inParallel(a: => Unit, b: => Unit): Unit = {
    @volatile var failure: Throwable = null
    val other = new Thread(() => try b catch { case t: Throwable => failure = t }, "lamina-hash-lookup-writer")
    other.setDaemon(true)
    other.start()
    try a finally other.join()
    if (failure != null) throw failure
  }

  /** A counting sort of `keys` by the range of their home slot among `slotCount` slots (halves of the
   *  keys hashed and scattered by two threads for large sections; the order is the same either way:
   *  within a range, keys keep the order they came in). */
  private def byHomeSlot(keys: KeyBuffer, slotCount: Long): SortedKeys = {
    val len = keys.keyLength
    val n = keys.count
    val home = new Array[Long](n)
    val rangeOf = new Array[Int](n)
    val split = if (n >= ParallelMinKeys) n / 2 else n
    val counts = Array.fill(2)(new Array[Int](HomeRanges))
    def hashAndCount(from: Int, until: Int, c: Array[Int]): Unit = {
      var i = from
      while (i < until) {
        val h = java.lang.Long.remainderUnsigned(KeyHash.hash64(keys.keys, i * len, len), slotCount)
        home(i) = h
        val r = homeRange(h, slotCount)
        rangeOf(i) = r
        c(r) += 1
        i += 1
      }
    }
    if (split == n) hashAndCount(0, n, counts(0)) else inParallel(hashAndCount(0, split, counts(0)), hashAndCount(split, n, counts(1)))
    // the first half's keys of a range go before the second half's
    val starts = Array.fill(2)(new Array[Int](HomeRanges))
    var at = 0
    var r = 0
    while (r < HomeRanges) {
      starts(0)(r) = at
      starts(1)(r) = at + counts(0)(r)
      at += counts(0)(r) + counts(1)(r)
      r += 1
    }
    val sorted = new SortedKeys(new Array[Byte](n * len), new Array[Long](n), new Array[Long](n),
      upperStart = starts(0)(HomeRanges / 2))
    def scatter(from: Int, until: Int, next: Array[Int]): Unit = {
      var i = from
      while (i < until) {
        val to = next(rangeOf(i))
        next(rangeOf(i)) = to + 1
        System.arraycopy(keys.keys, i * len, sorted.keys, to * len, len)
        sorted.offsets(to) = keys.offsets(i)
        sorted.home(to) = home(i)
        i += 1
      }
    }
    if (split == n) scatter(0, n, starts(0)) else inParallel(scatter(0, split, starts(0)), scatter(split, n, starts(1)))
    sorted
  }

  /** The home range of home slot `h`: floor(h * HomeRanges / slotCount). Range HomeRanges / 2 starts at
   *  slot ceil(slotCount / 2). */
  private def homeRange(h: Long, slotCount: Long): Int = (h * HomeRanges / slotCount).toInt

  /** The slot region of one key length being filled: keys go in by linear probing from their home slot;
   *  a CRC per slot is computed once all keys are in. */
  private final class SlotTable(region: Array[Byte], len: Int, slotCount: Long, sorted: SortedKeys, file: File) {
    private val slotSize = HashSection.slotSize(len)

    /** Inserts sorted keys [from, until), each from its home slot, a probe wrapping from the last slot
     *  to the first. */
    def insert(from: Int, until: Int): Unit = {
      var i = from
      while (i < until) {
        place(i, -1)
        i += 1
      }
    }

    /** Inserts sorted keys [from, until) whose probes stay below slot `stopAt` (the end of this
     *  thread's half, or of the region: no wrapping); the others go to `deferred`, in order. */
    def insertBelow(from: Int, until: Int, stopAt: Long, deferred: mutable.ArrayBuffer[Int]): Unit = {
      var i = from
      while (i < until) {
        if (!place(i, stopAt)) deferred += i
        i += 1
      }
    }

    /** Places sorted key i; false, with nothing written, when its probe reaches slot `stopAt`. */
    private def place(i: Int, stopAt: Long): Boolean = {
      val keyOff = i * len
      var slot = sorted.home(i)
      var p = (slot * slotSize).toInt
      while (LittleEndian.getLong(region, p + len) != 0) {
        if (java.util.Arrays.equals(region, p, p + len, sorted.keys, keyOff, keyOff + len))
          throw new BadInputException(s"Duplicate key ${hex(sorted.keys, keyOff, len)} in hash lookup file ${file.getPath}")
        slot += 1
        if (slot == stopAt) return false
        if (slot == slotCount) slot = 0
        p = (slot * slotSize).toInt
      }
      System.arraycopy(sorted.keys, keyOff, region, p, len)
      LittleEndian.putLong(region, p + len, sorted.offsets(i))
      true
    }

    /** Writes the CRC of slots [from, until): of the key and offset bytes; an empty slot's is the CRC of
     *  zero bytes. */
    def checksum(from: Long, until: Long): Unit = {
      val c = new CRC32C()
      val crcBytes = len + HashSection.OffsetBytes
      c.update(new Array[Byte](crcBytes))
      val emptyCrc = c.getValue.toInt
      var p = (from * slotSize).toInt
      val end = (until * slotSize).toInt
      while (p < end) {
        val crc =
          if (LittleEndian.getLong(region, p + len) == 0) emptyCrc // an empty slot: all zero bytes
          else {
            c.reset()
            c.update(region, p, crcBytes)
            c.getValue.toInt
          }
        LittleEndian.putInt(region, p + crcBytes, crc)
        p += slotSize
      }
    }
  }

  /** Share of slots in use; lower means shorter probes and more bytes. */
  val LoadFactor: Double = 0.75

  /** Values up to this size are copied into one buffer with their record's varint and CRC. */
  private val SmallValue = 64

  /** Most bytes of keys and offsets a writer sets aside for the expected keys before they arrive. */
  private val MaxPresizedBytes = 1L << 28

  /** Keys of one length, back to back, and the record offset of each; room for `capacity` keys at first. */
  private final class KeyBuffer(val keyLength: Int, capacity: Int) {
    private val initial = math.max(16, capacity)
    var keys = new Array[Byte](math.max(16, initial * keyLength))
    var offsets = new Array[Long](initial)
    var count = 0

    def add(key: Array[Byte], offset: Long): Unit = {
      if (count == offsets.length) {
        offsets = java.util.Arrays.copyOf(offsets, count * 2)
        val need = offsets.length.toLong * keyLength
        if (need > Int.MaxValue - 8)
          throw new BadInputException(s"Too many keys of $keyLength bytes for one hash lookup file")
        if (keys.length < need) keys = java.util.Arrays.copyOf(keys, need.toInt)
      }
      System.arraycopy(key, 0, keys, count * keyLength, keyLength)
      offsets(count) = offset
      count += 1
    }
  }

  private def hex(b: Array[Byte], off: Int, len: Int): String =
    "0x" + b.slice(off, off + math.min(len, 32)).map(x => f"${x & 0xff}%02x").mkString + (if (len > 32) "..." else "")
}
