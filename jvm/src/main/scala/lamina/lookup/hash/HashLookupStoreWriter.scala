package lamina.lookup.hash

import java.io.File

import scala.collection.mutable

import lamina.errors.BadInputException
import lamina.lookup.LookupStoreWriter
import lamina.lookup.io.{Checksums, KeyHash, LittleEndian, LocalFileOutput, PageChecksums, VarInt}

/** Writes a hash lookup file (format: docs/format/hash-lookup-store.md), in the manner of PalDB.
 *
 * Values stream to the data section as they arrive; keys and their record offsets stay in memory,
 * grouped by key length and, within a length, by the range of slots their hash leads to
 * ([[HashLookupStoreWriter.KeyBuffer]]), until `finish` lays out one open-addressing slot array per key
 * length, range after range. Keys may come in any order; a duplicate key is rejected at `finish`.
 * Every page of `pageSize` bytes gets a CRC32C (the data section's as it streams out).
 * Invariant: every record offset held is the start of a complete record already written.
 */
final class HashLookupStoreWriter(file: File, pageSize: Int, expectedEntries: Long = 0) extends LookupStoreWriter {
  import HashLookupStoreWriter._

  private val out = new LocalFileOutput(file, checksums = new PageChecksums(pageSize))
  out.write(HashFileHeader.encode())
  private val sections = mutable.TreeMap.empty[Int, KeyBuffer]
  /** A record being assembled: varint and a small value. */
  private val record = new Array[Byte](VarInt.MaxBytes + SmallValue)
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
    if (value.length <= SmallValue) {
      System.arraycopy(value, 0, record, headerLen, value.length)
      out.write(record, 0, headerLen + value.length)
    } else {
      out.write(record, 0, headerLen)
      out.write(value)
    }
    if (lastKeys == null || lastKeys.keyLength != key.length)
      lastKeys = sections.getOrElseUpdate(key.length,
        // the first key length is usually the only one: room for the expected keys up front
        new KeyBuffer(key.length, if (sections.isEmpty) math.min(expectedEntries, MaxPresizedBytes / (key.length + 8) * 16 / 17) else 0, file))
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
        val dataSums = out.endChecksums()
        val written = sections.values.map(writeSection).toSeq
        out.write(HashPageChecksums.encode(Array.concat(dataSums +: written.map(_._2): _*)))
        val tableOffset = out.position
        val table = HashSection.encodeTable(written.map(_._1))
        out.write(table)
        out.write(HashFooter(tableOffset, table.length, recordCount, dataEnd, pageSize).encode())
        finished = out.position
      } finally {
        sections.clear()
        out.close()
      }
    }
    finished
  }

  /** Writes the slot region of one key length; returns its section and the checksums of its pages. */
  private def writeSection(keys: KeyBuffer): (HashSection, Array[Int]) = {
    val section = HashSection(keys.keyLength, keys.count, HashSection.slotCountFor(keys.count, LoadFactor), out.position)
    val region = new Array[Byte](section.regionLength.toInt)
    val table = new SlotTable(region, section, keys, file)
    val slotsPerPage = section.slotsPerPage(pageSize)
    val pages = section.pageCount(pageSize).toInt
    val sums = new Array[Int](pages)
    def checksum(fromPage: Int, untilPage: Int): Unit = {
      var p = fromPage
      while (p < untilPage) {
        val from = p.toLong * slotsPerPage * section.slotSize
        val until = math.min(section.regionLength, from + slotsPerPage.toLong * section.slotSize)
        sums(p) = Checksums.crc32c(region, from.toInt, (until - from).toInt)
        p += 1
      }
    }
    val deferredLower, deferredUpper = new mutable.ArrayBuffer[Long]
    val parallel = keys.count >= ParallelMinKeys
    if (!parallel) table.insertRanges(0, HomeRanges, section.slotCount, deferredUpper)
    else {
      // Two threads fill the two halves of the slot region (the home slots of the lower half of the
      // ranges are exactly the lower half of the slots); a key whose probe would cross into the other
      // half waits, and goes in afterwards, in the order of the keys.
      inParallel(table.insertRanges(0, HomeRanges / 2, section.slotCount / 2, deferredLower),
        table.insertRanges(HomeRanges / 2, HomeRanges, section.slotCount, deferredUpper))
      deferredLower.foreach(table.insertWrapping)
    }
    // probes that ran past the last slot continue from the first
    deferredUpper.foreach(table.insertWrapping)
    if (parallel) inParallel(checksum(0, pages / 2), checksum(pages / 2, pages)) else checksum(0, pages)
    out.write(region)
    (section, sums)
  }
}

object HashLookupStoreWriter {

  /** Ranges of home slots that keys are gathered by as they arrive: a key's range is the top
   *  [[RangeBits]] bits of its hash, so ranges follow home slots (see [[HashSection.homeSlot]]) and
   *  inserting one range's keys touches one sixteenth of the slot region. More ranges narrow that
   *  window, but in measurements (64 and 256 ranges) appending each arriving key to one of many
   *  ranges cost more than the narrower window saved. */
  private val RangeBits = 4
  private val HomeRanges = 1 << RangeBits

  /** Sections with at least this many keys are laid out and checksummed by two threads. */
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

  /** Copies a key: keys of 8 or 16 bytes (the usual serialized keys) as whole words, no call. */
  private def copyKey(from: Array[Byte], fromOff: Int, to: Array[Byte], toOff: Int, len: Int): Unit =
    if (len == 16) {
      LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
      LittleEndian.putLong(to, toOff + 8, LittleEndian.getLong(from, fromOff + 8))
    } else if (len == 8) LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
    else System.arraycopy(from, fromOff, to, toOff, len)

  /** Keys of one length with the record offset of each (key bytes, then a u64 offset: an entry), held
   *  by home range, in the order they came. Room for `expected` keys is set aside at once, one slice of
   *  one array per range (a range that outgrows its slice moves to an array of its own): one large
   *  array is not copied around by young collections as many middle-sized ones would be. Slices are
   *  an odd number of cache lines long, so that the ranges' write positions, which advance together,
   *  do not all fall into the same cache sets. */
  private final class KeyBuffer(val keyLength: Int, expected: Long, file: File) {
    val entryBytes: Int = keyLength + HashSection.OffsetBytes
    /** Where range r's entries are: array, offset of its first entry, entries it has room for. */
    val arrays: Array[Array[Byte]] = new Array[Array[Byte]](HomeRanges)
    val bases: Array[Int] = new Array[Int](HomeRanges)
    private val capacities: Array[Int] = new Array[Int](HomeRanges)
    val counts: Array[Int] = new Array[Int](HomeRanges)
    var count = 0

    if (expected > 0) {
      val lines = (((expected / HomeRanges * 17 / 16 + 8) * entryBytes + 63) / 64) | 1L
      val stride = lines * 64
      if (stride * HomeRanges <= Int.MaxValue - 8) {
        val shared = new Array[Byte]((stride * HomeRanges).toInt)
        var r = 0
        while (r < HomeRanges) {
          arrays(r) = shared
          bases(r) = (r * stride).toInt
          capacities(r) = (stride / entryBytes).toInt
          r += 1
        }
      }
    }

    /** Keys beyond this many would not fit one slot region: refused as they arrive, not at `finish`. */
    private val maxKeys = HashSection.maxKeys(keyLength, LoadFactor)

    def add(key: Array[Byte], offset: Long): Unit = {
      if (count >= maxKeys)
        throw new BadInputException(s"Too many keys of $keyLength bytes for one hash lookup file (${file.getPath}): " +
          s"the slots of more than $maxKeys keys would exceed ${HashSection.MaxRegionBytes} bytes")
      val r = (KeyHash.hash64(key) >>> (64 - RangeBits)).toInt
      if (counts(r) == capacities(r)) grow(r)
      val b = arrays(r)
      val at = bases(r) + counts(r) * entryBytes
      copyKey(key, 0, b, at, keyLength)
      LittleEndian.putLong(b, at + keyLength, offset)
      counts(r) += 1
      count += 1
    }

    private def grow(r: Int): Unit = {
      // a range holds fewer keys than maxKeys, whose slots (each at least an entry's size) fit in an array
      val entries = math.min(math.max(16L, counts(r) * 2L), maxKeys + 1)
      val b = new Array[Byte]((entries * entryBytes).toInt)
      if (arrays(r) != null) System.arraycopy(arrays(r), bases(r), b, 0, counts(r) * entryBytes)
      arrays(r) = b
      bases(r) = 0
      capacities(r) = entries.toInt
    }
  }

  /** The slot region of one key length being filled: keys go in by linear probing from their home slot. */
  private final class SlotTable(region: Array[Byte], section: HashSection, keys: KeyBuffer, file: File) {
    private val len = section.keyLength
    private val slotSize = section.slotSize
    private val slotCount = section.slotCount

    /** Inserts the keys of ranges [from, until), range after range, whose probes stay below slot
     *  `stopAt` (the end of this thread's half, or of the region: no wrapping); the others go to
     *  `deferred` (range and index), in order. */
    def insertRanges(from: Int, until: Int, stopAt: Long, deferred: mutable.ArrayBuffer[Long]): Unit = {
      var r = from
      while (r < until) {
        val b = keys.arrays(r)
        val base = keys.bases(r)
        val n = keys.counts(r)
        var i = 0
        while (i < n) {
          if (!place(b, base + i * keys.entryBytes, stopAt)) deferred += (r.toLong << 32) | i
          i += 1
        }
        r += 1
      }
    }

    /** Inserts a deferred key, its probe wrapping from the last slot to the first. */
    def insertWrapping(key: Long): Unit = {
      val r = (key >>> 32).toInt
      place(keys.arrays(r), keys.bases(r) + key.toInt * keys.entryBytes, -1)
    }

    /** Places the key of the entry at b[at]; false, with nothing written, when its probe reaches slot `stopAt`. */
    private def place(b: Array[Byte], at: Int, stopAt: Long): Boolean = {
      var slot = section.homeSlot(KeyHash.hash64(b, at, len))
      var p = (slot * slotSize).toInt
      while (LittleEndian.getLong(region, p + len) != 0) {
        if (java.util.Arrays.equals(region, p, p + len, b, at, at + len))
          throw new BadInputException(s"Duplicate key ${hex(b, at, len)} in hash lookup file ${file.getPath}")
        slot += 1
        if (slot == stopAt) return false
        if (slot == slotCount) slot = 0
        p = (slot * slotSize).toInt
      }
      copyKey(b, at, region, p, len)
      LittleEndian.putLong(region, p + len, LittleEndian.getLong(b, at + len))
      true
    }
  }

  /** Share of slots in use; lower means shorter probes and more bytes. */
  val LoadFactor: Double = 0.75

  /** Values up to this size are copied into one buffer with their record's varint. */
  private val SmallValue = 64

  /** Most bytes of keys and offsets a writer sets aside for the expected keys before they arrive (with
   *  the slack of 1/16 each range gets). */
  private val MaxPresizedBytes = 1L << 28

  private def hex(b: Array[Byte], off: Int, len: Int): String =
    "0x" + b.slice(off, off + math.min(len, 32)).map(x => f"${x & 0xff}%02x").mkString + (if (len > 32) "..." else "")
}
