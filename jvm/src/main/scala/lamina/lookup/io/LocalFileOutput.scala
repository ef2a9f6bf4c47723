package lamina.lookup.io

import java.io.{Closeable, File}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.StandardOpenOption

/** Append-only output to a new file that tracks its position. Not thread-safe, but for [[writeAt]];
 *  buffers in a plain array (no per-call locking, unlike BufferedOutputStream) and writes through a
 *  FileChannel. With `checksums`, every byte from the start of the file feeds them as it goes to the
 *  channel, until [[endChecksums]]. A span may be [[reserve]]d and filled by [[writeAt]], from several
 *  threads at once. */
final class LocalFileOutput(file: File, bufferSize: Int = 1 << 20, private var checksums: PageChecksums = null)
  extends Closeable {
  private val channel = FileChannel.open(file.toPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
    StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING)
  private val buf = new Array[Byte](bufferSize)
  private var used = 0
  private var flushed = 0L

  def position: Long = flushed + used

  def write(b: Array[Byte], off: Int, len: Int): Unit =
    if (len <= buf.length - used) {
      System.arraycopy(b, off, buf, used, len)
      used += len
    } else {
      flush()
      if (len >= buf.length) {
        // in pieces of the buffer's size: a channel copies a heap array through a temporary direct
        // buffer as large as what it is handed
        var at = off
        while (at < off + len) {
          val piece = math.min(buf.length, off + len - at)
          writeFully(ByteBuffer.wrap(b, at, piece))
          at += piece
        }
      } else {
        System.arraycopy(b, off, buf, 0, len)
        used = len
      }
    }

  def write(b: Array[Byte]): Unit = write(b, 0, b.length)

  private def flush(): Unit = if (used > 0) {
    writeFully(ByteBuffer.wrap(buf, 0, used))
    used = 0
  }

  /** The checksums of the pages of everything written so far; later bytes feed no checksums. */
  def endChecksums(): Array[Int] = {
    flush()
    val sums = checksums.finish()
    checksums = null
    sums
  }

  private def writeFully(bb: ByteBuffer): Unit = {
    val n = bb.remaining()
    if (checksums != null) checksums.update(bb.array, bb.arrayOffset + bb.position, n)
    writeAt(flushed, bb)
    flushed += n
  }

  /** Sets aside the next `length` bytes, to be written by [[writeAt]] (after [[endChecksums]], as
   *  checksums are fed in order); returns where they start. */
  def reserve(length: Long): Long = {
    require(checksums == null, "a span is reserved only once checksums have ended")
    flush()
    val start = flushed
    flushed += length
    start
  }

  /** The CRC32C of bytes [position, position + length), already written by [[writeAt]]. */
  def checksumAt(position: Long, length: Int): Int = {
    val bb = ByteBuffer.allocate(length)
    while (bb.hasRemaining)
      if (channel.read(bb, position + bb.position()) < 0)
        throw new java.io.EOFException(s"${file.getPath} ends before ${position + length}")
    Checksums.crc32c(bb.array, 0, length)
  }

  /** Writes `bb` whole at file offset `position` (within a reserved span); safe from several threads. */
  def writeAt(position: Long, bb: ByteBuffer): Unit = {
    var at = position
    while (bb.hasRemaining) at += channel.write(bb, at)
  }

  override def close(): Unit =
    try flush()
    finally channel.close()
}
