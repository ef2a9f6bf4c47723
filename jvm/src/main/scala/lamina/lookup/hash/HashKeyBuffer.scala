package lamina.lookup.hash

import java.io.File

import lamina.errors.BadInputException
import lamina.lookup.io.{KeyHash, LittleEndian}

/** Keys of one length with the record offset of each (key bytes, then a u64 offset: an entry), held by
 *  home range, in the order they came, until the writer lays out their slots ([[SlotRegionWriter]]).
 *  A key's range is the top [[HashKeyBuffer.RangeBits]] bits of its hash, so ranges follow home slots
 *  (see [[HashSection.homeSlot]]) and each range is ordered on its own, in caches.
 *
 *  Room for `expected` keys is set aside at once, one slice of one array per range (a range that
 *  outgrows its slice moves to an array of its own): one large array is not copied around by young
 *  collections as many middle-sized ones would be. Slices are an odd number of cache lines long, so
 *  that the ranges' write positions, which advance together, do not all fall into the same cache sets. */
private[hash] final class HashKeyBuffer(val keyLength: Int, expected: Long, file: File, loadFactor: Double) {
  import HashKeyBuffer._

  val entryBytes: Int = keyLength + HashSection.OffsetBytes

  /** Where range r's entries are: array, offset of its first entry, entries it has room for. */
  val arrays: Array[Array[Byte]] = new Array[Array[Byte]](Ranges)
  val bases: Array[Int] = new Array[Int](Ranges)
  private val capacities: Array[Int] = new Array[Int](Ranges)
  val counts: Array[Int] = new Array[Int](Ranges)
  var count = 0

  if (expected > 0) {
    val lines = (((expected / Ranges * 17 / 16 + 8) * entryBytes + 63) / 64) | 1L
    val stride = lines * 64
    if (stride * Ranges <= Int.MaxValue - 8) {
      val shared = new Array[Byte]((stride * Ranges).toInt)
      var r = 0
      while (r < Ranges) {
        arrays(r) = shared
        bases(r) = (r * stride).toInt
        capacities(r) = (stride / entryBytes).toInt
        r += 1
      }
    }
  }

  /** Keys beyond this many would not fit one slot region: refused as they arrive, not at `finish`. */
  private val maxKeys = HashSection.maxKeys(keyLength, loadFactor)

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

  /** Where entry i of range r starts in `arrays(r)`. */
  def entryAt(r: Int, i: Int): Int = bases(r) + i * entryBytes

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

private[hash] object HashKeyBuffer {

  /** Ranges of home slots that keys are gathered by as they arrive. More ranges make each smaller, but
   *  in measurements (64 and 256 ranges) appending each arriving key to one of many ranges cost more
   *  than the smaller ranges saved. */
  val RangeBits = 4
  val Ranges: Int = 1 << RangeBits

  /** Copies an entry (or slot) of `e` bytes: those of 8- and 16-byte keys as whole words, no call. */
  def copyEntry(from: Array[Byte], fromOff: Int, to: Array[Byte], toOff: Int, e: Int): Unit =
    if (e == 24) {
      LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
      LittleEndian.putLong(to, toOff + 8, LittleEndian.getLong(from, fromOff + 8))
      LittleEndian.putLong(to, toOff + 16, LittleEndian.getLong(from, fromOff + 16))
    } else if (e == 16) {
      LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
      LittleEndian.putLong(to, toOff + 8, LittleEndian.getLong(from, fromOff + 8))
    } else System.arraycopy(from, fromOff, to, toOff, e)

  /** A key in hexadecimal for messages (its first 32 bytes). */
  def hex(b: Array[Byte], off: Int, len: Int): String =
    "0x" + b.slice(off, off + math.min(len, 32)).map(x => f"${x & 0xff}%02x").mkString + (if (len > 32) "..." else "")

  /** Copies a key: keys of 8 or 16 bytes (the usual serialized keys) as whole words, no call. */
  def copyKey(from: Array[Byte], fromOff: Int, to: Array[Byte], toOff: Int, len: Int): Unit =
    if (len == 16) {
      LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
      LittleEndian.putLong(to, toOff + 8, LittleEndian.getLong(from, fromOff + 8))
    } else if (len == 8) LittleEndian.putLong(to, toOff, LittleEndian.getLong(from, fromOff))
    else System.arraycopy(from, fromOff, to, toOff, len)
}
