package lamina.lookup.sort

import lamina.errors.CorruptFileException
import lamina.lookup.cache.Page
import lamina.lookup.compression.CompressionType
import lamina.lookup.io.LittleEndian

/** Turns a raw block into the bytes stored in the file, and back.
 *
 * Stored form: payload, then [[BlockTrailer]]. A compressed payload is the u32 uncompressed length
 * followed by the codec's output; it is used only when it saves at least 1/8 of the raw size, since
 * decompression costs on every cache miss.
 */
object StoredBlock {
  val UncompressedLengthBytes: Int = LittleEndian.IntBytes

  /** Reusable output buffer of one writer. */
  final class Scratch {
    var bytes: Array[Byte] = new Array[Byte](0)

    /** Whether the last block encoded here was stored compressed. */
    var compressed: Boolean = false
    def ensure(n: Int): Array[Byte] = {
      if (bytes.length < n) bytes = new Array[Byte](math.max(n, bytes.length * 2))
      bytes
    }
  }

  /** Encodes raw b[0, len); returns the number of stored bytes (payload and trailer) in scratch. */
  def encode(raw: Array[Byte], len: Int, compression: CompressionType, scratch: Scratch): Int = {
    var out = scratch.ensure(len + BlockTrailer.EncodedLength)
    var payloadLen = len
    var used: CompressionType = CompressionType.None
    if (compression != CompressionType.None) {
      val bound = UncompressedLengthBytes + compression.maxCompressedLength(len) + BlockTrailer.EncodedLength
      out = scratch.ensure(bound)
      LittleEndian.putInt(out, 0, len)
      val compressed = UncompressedLengthBytes + compression.compress(raw, 0, len, out, UncompressedLengthBytes)
      if (compressed <= len - len / 8) {
        payloadLen = compressed
        used = compression
      }
    }
    if (used == CompressionType.None) System.arraycopy(raw, 0, out, 0, len)
    scratch.compressed = used != CompressionType.None
    out(payloadLen) = used.id
    BlockTrailer(used, BlockTrailer.checksum(out, 0, payloadLen)).encode(out, payloadLen)
    payloadLen + BlockTrailer.EncodedLength
  }

  /** Verifies and decodes `stored` (payload and trailer) read at `fileOffset` into an array of its own
   *  (`stored` is not kept); returns the raw block. */
  def decode(stored: Array[Byte], path: String, fileOffset: Long): Array[Byte] = {
    val raw = decodePage(Page.of(stored), path, fileOffset, Page.allocate(_))
    if (raw.bytes eq stored) java.util.Arrays.copyOf(stored, raw.length) else raw.bytes
  }

  /** Verifies and decodes `stored` (payload and trailer, read at `fileOffset`); returns the raw block:
   *  a prefix of `stored` when the payload is uncompressed, else `allocate(rawLength)` decompressed. */
  def decodePage(stored: Page, path: String, fileOffset: Long, allocate: Int => Page): Page = {
    val storedLength = stored.length
    val b = stored.bytes
    val payloadLen = storedLength - BlockTrailer.EncodedLength
    if (payloadLen < 0)
      throw new CorruptFileException(path, fileOffset, s"at least ${BlockTrailer.EncodedLength} bytes",
        s"$storedLength bytes", "stored block")
    val trailer = BlockTrailer.verify(b, payloadLen, path, fileOffset)
    trailer.compression match {
      case CompressionType.None => stored.truncated(payloadLen)
      case codec =>
        val rawLen = if (payloadLen >= UncompressedLengthBytes) LittleEndian.getInt(b, 0) else -1
        if (rawLen < 0)
          throw new CorruptFileException(path, fileOffset, "a non-negative uncompressed length",
            s"$rawLen", "compressed block")
        val page = allocate(rawLen)
        if (!codec.decompress(b, UncompressedLengthBytes, payloadLen - UncompressedLengthBytes, page.bytes, rawLen))
          throw new CorruptFileException(path, fileOffset, s"${codec.name} data of $rawLen bytes",
            "undecodable data", "compressed block")
        page
    }
  }
}
