package lamina.lookup.hash

import lamina.errors.CorruptFileException
import lamina.lookup.io.{Checksums, LittleEndian}

/** The slots of all keys of one length: `slotCount` slots of [[slotSize]] bytes at `slotsOffset`.
 *
 * Slot layout: key (keyLength bytes), u64 record offset (0 = empty slot). Slots are checked by the
 * CRC32C of the page that holds them ([[HashPageChecksums]]).
 * Invariant: keyCount < slotCount and slotCount is even, so linear probing always reaches an empty
 * slot and the home slots of hashes below 2^63 (unsigned) are exactly those below slotCount / 2.
 */
final case class HashSection(keyLength: Int, keyCount: Long, slotCount: Long, slotsOffset: Long) {
  val slotSize: Int = HashSection.slotSize(keyLength)
  def regionLength: Long = slotCount * slotSize

  /** The slot a key of hash `h` is placed at or probed from: floor(h * slotCount / 2^64), h unsigned. A
   *  multiplication rather than a remainder: no division per key, and home slots ascend with h. */
  def homeSlot(h: Long): Long = Math.multiplyHigh(h, slotCount) + ((h >> 63) & slotCount)

  /** Slots a page of `pageSize` bytes holds (at least one). */
  def slotsPerPage(pageSize: Int): Int = math.max(1, pageSize / slotSize)

  /** Pages of `pageSize` bytes the slots take. */
  def pageCount(pageSize: Int): Long = (slotCount + slotsPerPage(pageSize) - 1) / slotsPerPage(pageSize)
}

object HashSection {

  /** Longest key a hash lookup file stores. */
  val MaxKeyLength: Int = 65535
  val OffsetBytes: Int = LittleEndian.LongBytes
  val CrcBytes: Int = LittleEndian.IntBytes
  // Section encoding: u32 key length, u64 key count, u64 slot count, u64 slots offset.
  val KeyLengthField: Int = 0
  val KeyCountField: Int = KeyLengthField + LittleEndian.IntBytes
  val SlotCountField: Int = KeyCountField + LittleEndian.LongBytes
  val SlotsOffsetField: Int = SlotCountField + LittleEndian.LongBytes
  val EncodedLength: Int = SlotsOffsetField + LittleEndian.LongBytes

  def slotSize(keyLength: Int): Int = keyLength + OffsetBytes

  /** Slots for `keyCount` keys at a load factor of at most `loadFactor`: more than the keys, and even. */
  def slotCountFor(keyCount: Long, loadFactor: Double): Long = {
    val n = math.max(keyCount + 1L, math.ceil(keyCount / loadFactor).toLong)
    n + (n & 1L)
  }

  /** Most bytes one slot region may take (it is laid out in one array). */
  val MaxRegionBytes: Long = Int.MaxValue - 8

  /** The most keys of length `keyLength` whose slots, at `loadFactor`, fit in [[MaxRegionBytes]]. */
  def maxKeys(keyLength: Int, loadFactor: Double): Long = {
    var lo = 0L // fits
    var hi = MaxRegionBytes // does not fit: a slot is at least one byte
    while (hi - lo > 1) {
      val mid = (lo + hi) >>> 1
      if (slotCountFor(mid, loadFactor) * slotSize(keyLength) <= MaxRegionBytes) lo = mid else hi = mid
    }
    lo
  }

  /** Section table: u32 section count, the sections, u32 CRC32C of everything before it. */
  def encodeTable(sections: Seq[HashSection]): Array[Byte] = {
    val b = new Array[Byte](LittleEndian.IntBytes + sections.size * EncodedLength + CrcBytes)
    LittleEndian.putInt(b, 0, sections.size)
    var p = LittleEndian.IntBytes
    sections.foreach { s =>
      LittleEndian.putInt(b, p + KeyLengthField, s.keyLength)
      LittleEndian.putLong(b, p + KeyCountField, s.keyCount)
      LittleEndian.putLong(b, p + SlotCountField, s.slotCount)
      LittleEndian.putLong(b, p + SlotsOffsetField, s.slotsOffset)
      p += EncodedLength
    }
    LittleEndian.putInt(b, p, Checksums.crc32c(b, 0, p))
    b
  }

  /** Decodes the table read at `fileOffset`; checks the CRC and that every section's slots lie in
   *  [dataEnd, fileOffset) without overlap. */
  def decodeTable(b: Array[Byte], path: String, fileOffset: Long, dataEnd: Long): IndexedSeq[HashSection] = {
    def corrupt(off: Long, expected: String, actual: String): Nothing =
      throw new CorruptFileException(path, fileOffset + off, expected, actual, "hash section table")
    if (b.length < LittleEndian.IntBytes + CrcBytes) corrupt(0, "a section table", s"${b.length} bytes")
    val crcAt = b.length - CrcBytes
    val expectedCrc = LittleEndian.getInt(b, crcAt)
    val actualCrc = Checksums.crc32c(b, 0, crcAt)
    if (expectedCrc != actualCrc)
      corrupt(crcAt, s"CRC32C ${Checksums.hex(expectedCrc)}", s"CRC32C ${Checksums.hex(actualCrc)}")
    val count = LittleEndian.getInt(b, 0)
    if (count < 0 || LittleEndian.IntBytes + count.toLong * EncodedLength != crcAt)
      corrupt(0, s"${(crcAt - LittleEndian.IntBytes) / EncodedLength} sections", s"$count")
    var next = dataEnd
    var lastLength = -1
    (0 until count).map { i =>
      val p = LittleEndian.IntBytes + i * EncodedLength
      val s = HashSection(LittleEndian.getInt(b, p + KeyLengthField), LittleEndian.getLong(b, p + KeyCountField),
        LittleEndian.getLong(b, p + SlotCountField), LittleEndian.getLong(b, p + SlotsOffsetField))
      if (s.keyLength <= lastLength || s.keyLength > MaxKeyLength || s.keyCount < 1 || s.slotCount <= s.keyCount ||
        (s.slotCount & 1L) != 0 || s.slotsOffset != next || s.slotCount > (fileOffset - s.slotsOffset) / s.slotSize)
        corrupt(p, s"section ${i} within [$next, $fileOffset) after key length $lastLength", s.toString)
      next = s.slotsOffset + s.regionLength
      lastLength = s.keyLength
      s
    }
  }
}
