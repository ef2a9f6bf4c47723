package lamina.lookup.sort

import lamina.errors.CorruptFileException
import lamina.lookup.{KeyComparator, UnsignedBytesComparator}
import lamina.lookup.cache.{Page, PageView}
import lamina.lookup.io.{LittleEndian, VarInt}

/** Read view of one raw block (layout in [[BlockWriter]]), with binary search by key.
 *
 * Immutable and safe to share between threads: the tail is parsed once, at construction, and every
 * accessor takes an entry index. A reader is cached beside its block (see [[SortLookupStoreReader]]),
 * so a lookup pays neither the parse nor the first touch of the block's tail. Every offset read from
 * the block is bounds-checked, so a block that passed its CRC but was written wrongly still fails as
 * corruption rather than with an index error. A block in a pooled array may be overwritten while read
 * (see [[lamina.lookup.cache.PageBuffer]]): every loop here is bounded by counts fixed at construction,
 * so such reads end, in garbage or an exception, which the caller discards when [[isCurrent]] is false.
 */
final class BlockReader(
    page: Page,
    comparator: KeyComparator,
    path: String,
    blockOffset: Long)
  extends PageView(page) {
  def this(block: Array[Byte], comparator: KeyComparator, path: String, blockOffset: Long) =
    this(Page.of(block), comparator, path, blockOffset)

  private val block: Array[Byte] = page.bytes

  /** The block is block[0, blockLength); a pooled array may be longer. */
  private val blockLength: Int = page.length
  private val flag: Byte = if (blockLength > 0) block(blockLength - 1) else corrupt("a block tail", "empty block")
  private val isAligned: Boolean = flag match {
    case BlockWriter.Aligned => true
    case BlockWriter.Unaligned => false
    case f => corrupt("block flag 0 or 1", s"flag $f")
  }
  private val tailInt: Int =
    if (blockLength >= BlockWriter.AlignedTailLength) LittleEndian.getInt(block, blockLength - BlockWriter.AlignedTailLength)
    else corrupt("a block tail", s"$blockLength bytes")

  /** End of the entry region. */
  private val dataEnd: Int =
    if (isAligned) blockLength - BlockWriter.AlignedTailLength
    else {
      val tableBytes = tailInt.toLong * LittleEndian.IntBytes
      val end = blockLength - BlockWriter.UnalignedTailLength - tableBytes
      if (tailInt < 0 || end < 0) corrupt("an entry count that fits the block", s"$tailInt")
      end.toInt
    }

  private val entrySize: Int = if (isAligned) tailInt else 0

  val count: Int =
    if (isAligned) {
      if (entrySize <= 0 || dataEnd % entrySize != 0) corrupt(s"an entry size dividing $dataEnd", s"$entrySize")
      dataEnd / entrySize
    } else tailInt

  private def corrupt(expected: String, actual: String): Nothing =
    throw new CorruptFileException(path, blockOffset, expected, actual, "block structure")

  // Entry positions are passed around packed: offset in the high 32 bits, length in the low 32 bits.
  @inline private def pack(off: Int, len: Int): Long = (off.toLong << 32) | (len & 0xffffffffL)
  @inline private def offsetOf(packed: Long): Int = (packed >>> 32).toInt
  @inline private def lengthOf(packed: Long): Int = packed.toInt

  /** Position of entry i's key. */
  private def keyAt(i: Int): Long = {
    val start =
      if (isAligned) i * entrySize
      else LittleEndian.getInt(block, dataEnd + i * LittleEndian.IntBytes)
    if (start < 0 || start >= dataEnd) corrupt(s"an entry offset within [0, $dataEnd)", s"$start")
    val k = VarInt.read(block, start, dataEnd)
    if (k < 0) corrupt("a key length", s"bad varint at block offset $start")
    val keyOff = start + VarInt.length(k)
    val keyLen = VarInt.value(k)
    if (keyLen > dataEnd - keyOff) corrupt("a key within the block", s"key length $keyLen")
    pack(keyOff, keyLen)
  }

  /** Position of the value that follows the key at `key`. */
  private def valueAfter(key: Long): Long = {
    val at = offsetOf(key) + lengthOf(key)
    val v = VarInt.read(block, at, dataEnd)
    if (v < 0) corrupt("a value length", s"bad varint at block offset $at")
    val valueOff = at + VarInt.length(v)
    val valueLen = VarInt.value(v)
    if (valueLen > dataEnd - valueOff) corrupt("a value within the block", s"value length $valueLen")
    pack(valueOff, valueLen)
  }

  private def compareKey(at: Long, key: Array[Byte]): Int =
    comparator.compare(block, offsetOf(at), lengthOf(at), key, 0, key.length)

  private def copy(at: Long): Array[Byte] =
    java.util.Arrays.copyOfRange(block, offsetOf(at), offsetOf(at) + lengthOf(at))

  // Search index, built on the block's second search (a block read once, as in a cold scan, never pays
  // for it): the first 8 bytes of each key as an unsigned big-endian number, so a binary search runs
  // over one small array instead of touching an entry in every probed cache line and page of the
  // block. Only for the unsigned-bytes order, which is the order of these numbers; keys that share
  // their first 8 bytes are then told apart by the full search over their range.
  private val indexable = comparator eq UnsignedBytesComparator
  @volatile private var prefixes: Array[Long] = _
  private var searches = 0 // approximate: a lost increment only delays the build

  /** Bytes the search index holds once built; the cache counts them with the block. */
  override def derivedBytes: Int = if (indexable) count * java.lang.Long.BYTES else 0

  private def searchIndex(): Array[Long] = {
    var p = prefixes
    if (p == null && indexable) {
      searches += 1
      if (searches > 1) {
        p = new Array[Long](count)
        var i = 0
        while (i < count) {
          val at = keyAt(i)
          p(i) = BlockReader.prefix(block, offsetOf(at), lengthOf(at))
          i += 1
        }
        prefixes = p
      }
    }
    p
  }

  /** Index of the first entry whose key is >= `key` (count when none). */
  def lowerBound(key: Array[Byte]): Int = {
    var lo = 0
    var hi = count
    val index = searchIndex()
    if (index != null) {
      // [lo, hi) = the entries whose prefix equals the key's; the answer lies in [lo, hi].
      val p = BlockReader.prefix(key, 0, key.length)
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (index(mid) < p) lo = mid + 1 else hi = mid
      }
      var end = count
      hi = lo
      while (hi < end) {
        val mid = (hi + end) >>> 1
        if (index(mid) <= p) hi = mid + 1 else end = mid
      }
    }
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (compareKey(keyAt(mid), key) < 0) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** Value of `key` in this block, or null. */
  def find(key: Array[Byte]): Array[Byte] = {
    val i = lowerBound(key)
    if (i == count) return null
    val at = keyAt(i)
    if (compareKey(at, key) == 0) copy(valueAfter(at)) else null
  }

  /** A copy of entry i's key (0 <= i < count). */
  def key(i: Int): Array[Byte] = copy(keyAt(i))

  /** A copy of entry i's value (0 <= i < count). */
  def value(i: Int): Array[Byte] = copy(valueAfter(keyAt(i)))

  /** Entry i's value decoded as a block handle (index blocks), checked to lie within [0, limit). */
  def handle(i: Int, limit: Long): BlockHandle = {
    val at = valueAfter(keyAt(i))
    if (lengthOf(at) != BlockHandle.EncodedLength)
      corrupt(s"a block handle of ${BlockHandle.EncodedLength} bytes", s"${lengthOf(at)} bytes")
    BlockHandle.decode(block, offsetOf(at), limit, path, blockOffset)
  }
}

object BlockReader {

  /** The first 8 bytes of b[off, off+len) (zero-padded) as a big-endian number, shifted so that
   *  signed comparison of results orders keys as unsigned bytes do (ties when the 8 bytes match). */
  def prefix(b: Array[Byte], off: Int, len: Int): Long = {
    var p = 0L
    var j = 0
    while (j < 8) {
      p = (p << 8) | (if (j < len) (b(off + j) & 0xffL) else 0L)
      j += 1
    }
    p ^ Long.MinValue
  }
}
