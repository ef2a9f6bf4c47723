package lamina.lookup.hash

import lamina.errors.CorruptFileException
import lamina.lookup.io.LittleEndian

/** First bytes of a hash lookup file: u64 magic, u32 format version. Also makes 0 an impossible
 *  record offset, which slots use to mean "empty". */
object HashFileHeader {

  /** "LMNAHASH" read as a little-endian u64. */
  val Magic: Long = LittleEndian.getLong("LMNAHASH".getBytes("US-ASCII"), 0)
  val FormatVersion: Int = 2
  val EncodedLength: Int = LittleEndian.LongBytes + LittleEndian.IntBytes

  def encode(): Array[Byte] = {
    val b = new Array[Byte](EncodedLength)
    LittleEndian.putLong(b, 0, Magic)
    LittleEndian.putInt(b, LittleEndian.LongBytes, FormatVersion)
    b
  }

  def verify(b: Array[Byte], path: String): Unit = {
    val magic = LittleEndian.getLong(b, 0)
    if (magic != Magic)
      throw new CorruptFileException(path, 0, f"magic 0x$Magic%016x", f"0x$magic%016x", "not a hash lookup file")
    val version = LittleEndian.getInt(b, LittleEndian.LongBytes)
    if (version != FormatVersion)
      throw new CorruptFileException(path, LittleEndian.LongBytes, s"format version $FormatVersion",
        s"format version $version", "header")
  }
}
