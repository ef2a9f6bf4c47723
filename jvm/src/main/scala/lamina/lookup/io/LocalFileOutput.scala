package lamina.lookup.io

import java.io.{BufferedOutputStream, Closeable, File, FileOutputStream}

/** Append-only buffered output that tracks its position. */
final class LocalFileOutput(file: File, bufferSize: Int = 1 << 20) extends Closeable {
  private val out = new BufferedOutputStream(new FileOutputStream(file), bufferSize)
  private var pos = 0L

  def position: Long = pos

  def write(b: Array[Byte], off: Int, len: Int): Unit = {
    out.write(b, off, len)
    pos += len
  }

  def write(b: Array[Byte]): Unit = write(b, 0, b.length)

  override def close(): Unit = out.close()
}
