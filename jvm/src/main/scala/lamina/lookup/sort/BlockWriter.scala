package lamina.lookup.sort

import lamina.lookup.io.{LittleEndian, VarInt}

/** Builds one raw block (data or index) of key-value entries, in the order given.
 *
 * Raw block layout: entries (varint key length, key, varint value length, value), then either
 *  - aligned (every entry the same size): u32 entry size, u8 [[BlockWriter.Aligned]]; or
 *  - unaligned: u32 offset of each entry, u32 entry count, u8 [[BlockWriter.Unaligned]].
 * Invariant: `positions(i)` is the start of entry i, and `aligned` holds iff all entries so far have
 * size `alignedSize`.
 */
final class BlockWriter(initialCapacity: Int) {
  private var buf = new Array[Byte](math.max(64, initialCapacity))
  private var size = 0
  private var positions = new Array[Int](64)
  private var count = 0
  private var aligned = true
  private var alignedSize = 0

  def entryCount: Int = count

  /** Bytes the finished block would take (entries and the offset table, without the tail). */
  def memory: Int = size + count * LittleEndian.IntBytes

  def add(key: Array[Byte], value: Array[Byte]): Unit = {
    val need = VarInt.MaxBytes * 2 + key.length + value.length
    ensure(size + need)
    val start = size
    var p = VarInt.write(buf, size, key.length)
    System.arraycopy(key, 0, buf, p, key.length)
    p += key.length
    p = VarInt.write(buf, p, value.length)
    System.arraycopy(value, 0, buf, p, value.length)
    p += value.length
    size = p
    if (count == positions.length) positions = java.util.Arrays.copyOf(positions, count * 2)
    positions(count) = start
    count += 1
    if (aligned) {
      val entrySize = p - start
      if (alignedSize == 0) alignedSize = entrySize else aligned = alignedSize == entrySize
    }
  }

  /** Appends the tail and returns the block's bytes: the first `finishedLength` bytes of the result.
   *  The array is reused after [[reset]]. An empty block is encoded unaligned with 0 entries. */
  def finish(): Array[Byte] = {
    val isAligned = aligned && count > 0
    val tail = if (isAligned) BlockWriter.AlignedTailLength
    else count * LittleEndian.IntBytes + BlockWriter.UnalignedTailLength
    ensure(size + tail)
    var p = size
    if (isAligned) {
      LittleEndian.putInt(buf, p, alignedSize)
      p += LittleEndian.IntBytes
    } else {
      var i = 0
      while (i < count) {
        LittleEndian.putInt(buf, p, positions(i))
        p += LittleEndian.IntBytes
        i += 1
      }
      LittleEndian.putInt(buf, p, count)
      p += LittleEndian.IntBytes
    }
    buf(p) = if (isAligned) BlockWriter.Aligned else BlockWriter.Unaligned
    finishedLength = p + 1
    buf
  }

  var finishedLength: Int = 0

  def reset(): Unit = {
    size = 0
    count = 0
    aligned = true
    alignedSize = 0
    finishedLength = 0
  }

  private def ensure(n: Int): Unit =
    if (n > buf.length) {
      if (n < 0) throw new IllegalStateException("block larger than 2 GiB")
      buf = java.util.Arrays.copyOf(buf, math.max(n, math.min(Int.MaxValue - 8, buf.length.toLong * 2).toInt))
    }
}

object BlockWriter {
  val Aligned: Byte = 0
  val Unaligned: Byte = 1

  /** u32 entry size, u8 flag. */
  val AlignedTailLength: Int = LittleEndian.IntBytes + 1

  /** u32 entry count, u8 flag (after the offset table). */
  val UnalignedTailLength: Int = LittleEndian.IntBytes + 1
}
