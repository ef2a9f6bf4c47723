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
final class HashLookupStoreWriter(file: File) extends LookupStoreWriter {
  import HashLookupStoreWriter._

  private val out = new LocalFileOutput(file)
  out.write(HashFileHeader.encode())
  private val sections = mutable.TreeMap.empty[Int, KeyBuffer]
  private val header = new Array[Byte](VarInt.MaxBytes)
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
    val headerLen = VarInt.write(header, 0, value.length)
    crc.reset()
    crc.update(key)
    crc.update(header, 0, headerLen)
    crc.update(value)
    LittleEndian.putInt(crcBytes, 0, crc.getValue.toInt)
    out.write(header, 0, headerLen)
    out.write(value)
    out.write(crcBytes)
    if (lastKeys == null || lastKeys.keyLength != key.length)
      lastKeys = sections.getOrElseUpdate(key.length, new KeyBuffer(key.length))
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
    var i = 0
    while (i < keys.count) {
      val keyOff = i * len
      var slot = sorted.home(i)
      var p = (slot * slotSize).toInt
      while (LittleEndian.getLong(region, p + len) != 0) {
        if (java.util.Arrays.equals(region, p, p + len, sorted.keys, keyOff, keyOff + len))
          throw new BadInputException(s"Duplicate key ${hex(sorted.keys, keyOff, len)} in hash lookup file ${file.getPath}")
        slot = if (slot + 1 == slotCount) 0 else slot + 1
        p = (slot * slotSize).toInt
      }
      System.arraycopy(sorted.keys, keyOff, region, p, len)
      LittleEndian.putLong(region, p + len, sorted.offsets(i))
      i += 1
    }
    val c = new CRC32C()
    val crcBytes = len + HashSection.OffsetBytes
    c.update(new Array[Byte](crcBytes))
    val emptyCrc = c.getValue.toInt
    var p = 0
    while (p < region.length) {
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
    val section = HashSection(len, keys.count, slotCount, out.position)
    out.write(region)
    section
  }
}

object HashLookupStoreWriter {

  /** Keys (back to back), record offsets and home slots, in ascending order of home slot range. */
  private final class SortedKeys(val keys: Array[Byte], val offsets: Array[Long], val home: Array[Long])

  /** Ranges of home slots the keys are sorted by: few enough that scattering keys into them writes to
   *  a handful of cache lines at a time, many enough that inserting one range touches a small window
   *  of the slot region. */
  private val HomeRanges = 1024

  /** A counting sort of `keys` by the range of their home slot among `slotCount` slots. */
  private def byHomeSlot(keys: KeyBuffer, slotCount: Long): SortedKeys = {
    val len = keys.keyLength
    val n = keys.count
    val home = new Array[Long](n)
    val rangeOf = new Array[Int](n)
    val starts = new Array[Int](HomeRanges + 1)
    var i = 0
    while (i < n) {
      val h = java.lang.Long.remainderUnsigned(KeyHash.hash64(keys.keys, i * len, len), slotCount)
      home(i) = h
      val r = (h * HomeRanges / slotCount).toInt
      rangeOf(i) = r
      starts(r + 1) += 1
      i += 1
    }
    var r = 0
    while (r < HomeRanges) { starts(r + 1) += starts(r); r += 1 }
    val sorted = new SortedKeys(new Array[Byte](n * len), new Array[Long](n), new Array[Long](n))
    i = 0
    while (i < n) {
      val at = starts(rangeOf(i))
      starts(rangeOf(i)) = at + 1
      System.arraycopy(keys.keys, i * len, sorted.keys, at * len, len)
      sorted.offsets(at) = keys.offsets(i)
      sorted.home(at) = home(i)
      i += 1
    }
    sorted
  }

  /** Share of slots in use; lower means shorter probes and more bytes. */
  val LoadFactor: Double = 0.75

  /** Keys of one length, back to back, and the record offset of each. */
  private final class KeyBuffer(val keyLength: Int) {
    var keys = new Array[Byte](math.max(16, keyLength * 16))
    var offsets = new Array[Long](16)
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
