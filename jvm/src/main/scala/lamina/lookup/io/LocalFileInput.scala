package lamina.lookup.io

import java.io.{Closeable, File}
import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.StandardOpenOption

import lamina.errors.CorruptFileException

/** Positional reads of one immutable local file; safe for concurrent use (FileChannel positional
 *  reads do not share a file pointer). Contract: the file is not changed while open. */
final class LocalFileInput(val file: File) extends Closeable {
  val path: String = file.getAbsolutePath
  private val channel = FileChannel.open(file.toPath, StandardOpenOption.READ)
  val length: Long = channel.size()

  /** Reads exactly `len` bytes at `offset`; a range past the end of the file is corruption. */
  def read(offset: Long, len: Int): Array[Byte] = readInto(offset, len, new Array[Byte](len))

  /** Reads exactly `len` bytes at `offset` into bytes[0, len); returns `bytes`. */
  def readInto(offset: Long, len: Int, bytes: Array[Byte]): Array[Byte] = {
    if (offset < 0 || len < 0 || offset > length - len) // offset + len could overflow
      throw new CorruptFileException(path, offset, s"a range of $len bytes within the file of $length bytes",
        s"a range ending at ${offset + len}", "reference past end of file")
    val buf = ByteBuffer.wrap(bytes, 0, len)
    var pos = offset
    while (buf.position() < len) {
      // at most MaxReadBytes a call: the channel reads a heap array through a temporary direct buffer
      // as large as the request, which the thread then keeps
      buf.limit(math.min(len, buf.position() + LocalFileInput.MaxReadBytes))
      val n = channel.read(buf, pos)
      if (n < 0)
        throw new CorruptFileException(path, pos, s"${len - (pos - offset)} more bytes", "end of file",
          "file truncated while open")
      pos += n
    }
    bytes
  }

  override def close(): Unit = channel.close()
}

object LocalFileInput {

  /** Most bytes asked of the channel at once. */
  val MaxReadBytes: Int = 1 << 20
}
