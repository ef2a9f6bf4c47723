package lamina.lookup.io

import java.util.zip.CRC32C

/** CRC32C (Castagnoli) as used by every checksum in lookup files. */
object Checksums {
  def crc32c(b: Array[Byte], off: Int, len: Int): Int = {
    val c = new CRC32C()
    c.update(b, off, len)
    c.getValue.toInt
  }

  def hex(v: Int): String = f"0x$v%08x"
}
