package lamina.lookup.sort

import lamina.lookup.io.LittleEndian

/** Location of the bloom filter block and the entry count it was sized for.
 *  Invariant: `handle` points at a stored block of the bit array; expectedEntries >= 1. */
final case class BloomFilterHandle(handle: BlockHandle, expectedEntries: Long) {
  def encode(b: Array[Byte], off: Int): Unit = {
    handle.encode(b, off)
    LittleEndian.putLong(b, off + BlockHandle.EncodedLength, expectedEntries)
  }
}

object BloomFilterHandle {

  /** Block handle, then u64 expected entries. */
  val EncodedLength: Int = BlockHandle.EncodedLength + LittleEndian.LongBytes
}
