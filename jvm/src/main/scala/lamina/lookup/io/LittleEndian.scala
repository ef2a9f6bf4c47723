package lamina.lookup.io

/** Fixed-width little-endian integers in byte arrays: the byte order of every lookup file. */
object LittleEndian {
  val IntBytes: Int = 4
  val LongBytes: Int = 8

  def putInt(b: Array[Byte], off: Int, v: Int): Unit = {
    b(off) = v.toByte
    b(off + 1) = (v >>> 8).toByte
    b(off + 2) = (v >>> 16).toByte
    b(off + 3) = (v >>> 24).toByte
  }

  def getInt(b: Array[Byte], off: Int): Int =
    (b(off) & 0xff) | ((b(off + 1) & 0xff) << 8) | ((b(off + 2) & 0xff) << 16) | ((b(off + 3) & 0xff) << 24)

  def putLong(b: Array[Byte], off: Int, v: Long): Unit = {
    putInt(b, off, v.toInt)
    putInt(b, off + 4, (v >>> 32).toInt)
  }

  def getLong(b: Array[Byte], off: Int): Long =
    (getInt(b, off) & 0xffffffffL) | (getInt(b, off + 4).toLong << 32)

  /** Unsigned 32-bit value as a long. */
  def getUnsignedInt(b: Array[Byte], off: Int): Long = getInt(b, off) & 0xffffffffL
}
