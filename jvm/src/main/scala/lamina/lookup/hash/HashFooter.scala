package lamina.lookup.hash

import lamina.errors.CorruptFileException
import lamina.lookup.io.{FooterTail, LittleEndian}

/** Last bytes of a hash lookup file.
 *
 * Layout (little-endian): u64 section table offset, u32 section table length, u64 record count,
 * u64 data end (first byte after the data section), u32 page size (the unit of checksums and
 * caching), u32 format version, u32 CRC32C of the preceding footer bytes, u64 magic.
 * Invariant: header length <= dataEnd <= tableOffset, tableOffset + tableLength = footer offset and
 * pageSize >= 1.
 */
final case class HashFooter(tableOffset: Long, tableLength: Int, recordCount: Long, dataEnd: Long, pageSize: Int) {
  def encode(): Array[Byte] = {
    val b = new Array[Byte](HashFooter.EncodedLength)
    LittleEndian.putLong(b, HashFooter.TableOffsetOffset, tableOffset)
    LittleEndian.putInt(b, HashFooter.TableLengthOffset, tableLength)
    LittleEndian.putLong(b, HashFooter.RecordCountOffset, recordCount)
    LittleEndian.putLong(b, HashFooter.DataEndOffset, dataEnd)
    LittleEndian.putInt(b, HashFooter.PageSizeOffset, pageSize)
    FooterTail.write(b, HashFooter.VersionOffset, HashFooter.CrcOffset, HashFooter.MagicOffset,
      HashFileHeader.Magic, HashFileHeader.FormatVersion)
    b
  }
}

object HashFooter {
  val TableOffsetOffset: Int = 0
  val TableLengthOffset: Int = TableOffsetOffset + LittleEndian.LongBytes
  val RecordCountOffset: Int = TableLengthOffset + LittleEndian.IntBytes
  val DataEndOffset: Int = RecordCountOffset + LittleEndian.LongBytes
  val PageSizeOffset: Int = DataEndOffset + LittleEndian.LongBytes
  val VersionOffset: Int = PageSizeOffset + LittleEndian.IntBytes
  val CrcOffset: Int = VersionOffset + LittleEndian.IntBytes
  val MagicOffset: Int = CrcOffset + LittleEndian.IntBytes
  val EncodedLength: Int = MagicOffset + LittleEndian.LongBytes

  def decode(b: Array[Byte], path: String, fileOffset: Long): HashFooter = {
    FooterTail.check(b, path, fileOffset, VersionOffset, CrcOffset, MagicOffset, HashFileHeader.Magic,
      HashFileHeader.FormatVersion, "hash")
    val f = HashFooter(LittleEndian.getLong(b, TableOffsetOffset), LittleEndian.getInt(b, TableLengthOffset),
      LittleEndian.getLong(b, RecordCountOffset), LittleEndian.getLong(b, DataEndOffset),
      LittleEndian.getInt(b, PageSizeOffset))
    if (f.dataEnd < HashFileHeader.EncodedLength || f.dataEnd > f.tableOffset || f.tableLength < 0 ||
      f.tableOffset + f.tableLength != fileOffset || f.recordCount < 0 || f.pageSize < 1)
      throw new CorruptFileException(path, fileOffset,
        s"section table ending at $fileOffset after the data, pages of at least 1 byte",
        s"data end ${f.dataEnd}, table at ${f.tableOffset} of ${f.tableLength} bytes, ${f.recordCount} records, " +
          s"pages of ${f.pageSize} bytes", "footer")
    f
  }
}
