package lamina.lookup.sort

import lamina.errors.CorruptFileException
import lamina.lookup.KeyComparator
import lamina.lookup.io.{LittleEndian, VarInt}

/** Read view of one raw block (layout in [[BlockWriter]]), with binary search by key.
 *
 * Cheap to create; not thread-safe (holds the position of the last decoded entry) while the block
 * bytes are shared. Every offset read from the block is bounds-checked, so a block that passed its
 * CRC but was written wrongly still fails as corruption rather than with an index error.
 */
final class BlockReader(
    block: Array[Byte],
    comparator: KeyComparator,
    path: String,
    blockOffset: Long) {
  private val flag: Byte = if (block.length > 0) block(block.length - 1) else corrupt("a block tail", "empty block")
  private val isAligned: Boolean = flag match {
    case BlockWriter.Aligned => true
    case BlockWriter.Unaligned => false
    case f => corrupt("block flag 0 or 1", s"flag $f")
  }
  private val tailInt: Int =
    if (block.length >= BlockWriter.AlignedTailLength) LittleEndian.getInt(block, block.length - BlockWriter.AlignedTailLength)
    else corrupt("a block tail", s"${block.length} bytes")

  /** End of the entry region. */
  private val dataEnd: Int =
    if (isAligned) block.length - BlockWriter.AlignedTailLength
    else {
      val tableBytes = tailInt.toLong * LittleEndian.IntBytes
      val end = block.length - BlockWriter.UnalignedTailLength - tableBytes
      if (tailInt < 0 || end < 0) corrupt("an entry count that fits the block", s"$tailInt")
      end.toInt
    }

  private val entrySize: Int = if (isAligned) tailInt else 0

  val count: Int =
    if (isAligned) {
      if (entrySize <= 0 || dataEnd % entrySize != 0) corrupt(s"an entry size dividing $dataEnd", s"$entrySize")
      dataEnd / entrySize
    } else tailInt

  // Decoded position of the current entry.
  private var keyOff = 0
  private var keyLen = 0
  private var valueOff = 0
  private var valueLen = 0

  private def corrupt(expected: String, actual: String): Nothing =
    throw new CorruptFileException(path, blockOffset, expected, actual, "block structure")

  /** Decodes entry i into the current position. */
  def decode(i: Int): Unit = {
    val start =
      if (isAligned) i * entrySize
      else LittleEndian.getInt(block, dataEnd + i * LittleEndian.IntBytes)
    if (start < 0 || start >= dataEnd) corrupt(s"an entry offset within [0, $dataEnd)", s"$start")
    val k = VarInt.read(block, start, dataEnd)
    if (k < 0) corrupt("a key length", s"bad varint at block offset $start")
    keyOff = start + VarInt.length(k)
    keyLen = VarInt.value(k)
    if (keyLen > dataEnd - keyOff) corrupt("a key within the block", s"key length $keyLen")
    val v = VarInt.read(block, keyOff + keyLen, dataEnd)
    if (v < 0) corrupt("a value length", s"bad varint at block offset ${keyOff + keyLen}")
    valueOff = keyOff + keyLen + VarInt.length(v)
    valueLen = VarInt.value(v)
    if (valueLen > dataEnd - valueOff) corrupt("a value within the block", s"value length $valueLen")
  }

  def compareCurrentKey(key: Array[Byte]): Int = comparator.compare(block, keyOff, keyLen, key, 0, key.length)

  /** Index of the first entry whose key is >= `key` (count when none); leaves it decoded if < count. */
  def lowerBound(key: Array[Byte]): Int = {
    var lo = 0
    var hi = count
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      decode(mid)
      if (compareCurrentKey(key) < 0) lo = mid + 1 else hi = mid
    }
    if (lo < count) decode(lo)
    lo
  }

  /** Value of `key` in this block, or null. */
  def find(key: Array[Byte]): Array[Byte] = {
    val i = lowerBound(key)
    if (i < count && compareCurrentKey(key) == 0) currentValue() else null
  }

  def currentKey(): Array[Byte] = java.util.Arrays.copyOfRange(block, keyOff, keyOff + keyLen)
  def currentValue(): Array[Byte] = java.util.Arrays.copyOfRange(block, valueOff, valueOff + valueLen)

  /** The current value decoded as a block handle (index blocks). */
  def currentHandle(limit: Long): BlockHandle = {
    if (valueLen != BlockHandle.EncodedLength)
      corrupt(s"a block handle of ${BlockHandle.EncodedLength} bytes", s"$valueLen bytes")
    BlockHandle.decode(block, valueOff, limit, path, blockOffset)
  }
}
