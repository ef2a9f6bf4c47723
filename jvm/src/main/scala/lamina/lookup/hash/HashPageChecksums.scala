package lamina.lookup.hash

import lamina.errors.CorruptFileException
import lamina.lookup.io.{Checksums, LittleEndian}

/** The page checksum table of a hash lookup file: the CRC32C of every page, the data section's pages
 *  first (bytes [i * pageSize, (i + 1) * pageSize) of the file, cut at the data end), then each slot
 *  region's pages (slotsPerPage whole slots each), in the order of the sections.
 *
 * Layout (little-endian): u32 CRC32C per page, then u32 CRC32C of the preceding table bytes. The page
 * count is not stored: readers know it from the footer and the section table.
 */
object HashPageChecksums {
  def encodedLength(pages: Long): Long = (pages + 1) * LittleEndian.IntBytes

  def encode(sums: Array[Int]): Array[Byte] = {
    val b = new Array[Byte](Math.toIntExact(encodedLength(sums.length)))
    var i = 0
    while (i < sums.length) { LittleEndian.putInt(b, i * LittleEndian.IntBytes, sums(i)); i += 1 }
    val end = sums.length * LittleEndian.IntBytes
    LittleEndian.putInt(b, end, Checksums.crc32c(b, 0, end))
    b
  }

  /** Decodes the table of `pages` pages read at `fileOffset`, checking its own CRC. */
  def decode(b: Array[Byte], pages: Int, path: String, fileOffset: Long): Array[Int] = {
    val end = pages * LittleEndian.IntBytes
    val expected = LittleEndian.getInt(b, end)
    val actual = Checksums.crc32c(b, 0, end)
    if (expected != actual)
      throw new CorruptFileException(path, fileOffset + end, s"CRC32C ${Checksums.hex(expected)}",
        s"CRC32C ${Checksums.hex(actual)}", "hash page checksum table")
    Array.tabulate(pages)(i => LittleEndian.getInt(b, i * LittleEndian.IntBytes))
  }
}
