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
  def read(offset: Long, len: Int): Array[Byte] = {
    if (offset < 0 || len < 0 || offset + len > length)
      throw new CorruptFileException(path, offset, s"a range of $len bytes within the file of $length bytes",
        s"a range ending at ${offset + len}", "reference past end of file")
    val bytes = new Array[Byte](len)
    val buf = ByteBuffer.wrap(bytes)
    var pos = offset
    while (buf.hasRemaining) {
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
