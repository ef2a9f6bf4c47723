package lamina.lookup.sort

import lamina.errors.CorruptFileException
import lamina.lookup.io.LittleEndian

/** Location of a stored block: `size` bytes of payload at `offset`, followed by its [[BlockTrailer]].
 *  Invariant: offset >= 0 and size >= 0. */
final case class BlockHandle(offset: Long, size: Int) {

  /** Bytes the block occupies in the file, trailer included. */
  def storedLength: Int = size + BlockTrailer.EncodedLength
  def end: Long = offset + storedLength

  def encode(b: Array[Byte], off: Int): Unit = {
    LittleEndian.putLong(b, off, offset)
    LittleEndian.putInt(b, off + LittleEndian.LongBytes, size)
  }

  def encode(): Array[Byte] = {
    val b = new Array[Byte](BlockHandle.EncodedLength)
    encode(b, 0)
    b
  }
}

object BlockHandle {

  /** u64 offset, u32 size. */
  val EncodedLength: Int = LittleEndian.LongBytes + LittleEndian.IntBytes

  /** Decodes a handle and checks that the block lies within [0, limit). */
  def decode(b: Array[Byte], off: Int, limit: Long, path: String, fileOffset: Long): BlockHandle = {
    val offset = LittleEndian.getLong(b, off)
    val size = LittleEndian.getInt(b, off + LittleEndian.LongBytes)
    // as a difference: offset + size could overflow a long and pass
    if (offset < 0 || size < 0 || offset > limit - BlockTrailer.EncodedLength - size)
      throw new CorruptFileException(path, fileOffset, s"a block handle within [0, $limit)",
        s"offset $offset size $size", "block handle out of range")
    BlockHandle(offset, size)
  }
}
