package lamina.lookup.io

import lamina.errors.CorruptFileException

/** The common end of every lookup file's footer: format version (u32), CRC32C (u32) of all footer
 *  bytes before it, magic (u64), little-endian. Each footer lays its own fields out before this. */
object FooterTail {

  /** Checks magic, CRC and version of footer bytes `b` read from `fileOffset` of `path`; the first
   *  difference found raises a [[CorruptFileException]] naming offset, expected and actual value. */
  def check(b: Array[Byte], path: String, fileOffset: Long, versionOffset: Int, crcOffset: Int, magicOffset: Int,
      magic: Long, version: Int, kind: String): Unit = {
    val actualMagic = LittleEndian.getLong(b, magicOffset)
    if (actualMagic != magic)
      throw new CorruptFileException(path, fileOffset + magicOffset, f"magic 0x$magic%016x",
        f"0x$actualMagic%016x", s"not a $kind lookup file")
    val expectedCrc = LittleEndian.getInt(b, crcOffset)
    val actualCrc = Checksums.crc32c(b, 0, crcOffset)
    if (expectedCrc != actualCrc)
      throw new CorruptFileException(path, fileOffset + crcOffset, s"CRC32C ${Checksums.hex(expectedCrc)}",
        s"CRC32C ${Checksums.hex(actualCrc)}", "footer")
    val actualVersion = LittleEndian.getInt(b, versionOffset)
    if (actualVersion != version)
      throw new CorruptFileException(path, fileOffset + versionOffset, s"format version $version",
        s"format version $actualVersion", "footer")
  }

  /** Writes version, CRC and magic after the footer's own fields (already in `b`). */
  def write(b: Array[Byte], versionOffset: Int, crcOffset: Int, magicOffset: Int, magic: Long, version: Int): Unit = {
    LittleEndian.putInt(b, versionOffset, version)
    LittleEndian.putInt(b, crcOffset, Checksums.crc32c(b, 0, crcOffset))
    LittleEndian.putLong(b, magicOffset, magic)
  }
}
