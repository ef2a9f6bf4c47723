package lamina.lookup.sort

import lamina.errors.CorruptFileException
import lamina.lookup.compression.CompressionType
import lamina.lookup.io.{Checksums, LittleEndian}

/** Follows every stored block: how its payload is compressed and the CRC32C that guards it.
 *  Invariant: `crc` = CRC32C over the stored payload followed by the compression byte. */
final case class BlockTrailer(compression: CompressionType, crc: Int) {
  def encode(b: Array[Byte], off: Int): Unit = {
    b(off) = compression.id
    LittleEndian.putInt(b, off + BlockTrailer.CompressionBytes, crc)
  }
}

object BlockTrailer {
  val CompressionBytes: Int = 1

  /** u8 compression type, u32 CRC32C. */
  val EncodedLength: Int = CompressionBytes + LittleEndian.IntBytes

  /** CRC of a stored block: payload b[off, off+len) and the compression byte right after it. */
  def checksum(b: Array[Byte], off: Int, len: Int): Int = Checksums.crc32c(b, off, len + CompressionBytes)

  /** Decodes the trailer at b[payloadLen..] of a stored block read from `fileOffset`, and verifies the
   *  payload b[0, payloadLen) against it. */
  def verify(b: Array[Byte], payloadLen: Int, path: String, fileOffset: Long): BlockTrailer = {
    val expected = LittleEndian.getInt(b, payloadLen + CompressionBytes)
    val actual = checksum(b, 0, payloadLen)
    if (expected != actual)
      throw new CorruptFileException(path, fileOffset, s"CRC32C ${Checksums.hex(expected)}",
        s"CRC32C ${Checksums.hex(actual)}", s"block of $payloadLen bytes")
    val id = b(payloadLen)
    val compression = CompressionType.fromId(id).getOrElse(throw new CorruptFileException(
        path, fileOffset + payloadLen, "a compression type in {0, 1, 2}", s"$id", "block trailer"))
    BlockTrailer(compression, expected)
  }
}
