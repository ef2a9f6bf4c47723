package lamina.lookup.sort

import lamina.errors.CorruptFileException
import lamina.lookup.io.{FooterTail, LittleEndian}

/** Last bytes of a sort lookup file: where the bloom filter and the index block are.
 *
 * Layout (little-endian): bloom filter handle (all zero when absent), index block handle,
 * u64 record count, u32 format version, u32 CRC32C of all preceding footer bytes, u64 magic.
 * Invariant: the CRC covers every footer byte before it, so a damaged footer is never followed.
 */
final case class Footer(bloomFilter: Option[BloomFilterHandle], index: BlockHandle, recordCount: Long) {
  def encode(): Array[Byte] = {
    val b = new Array[Byte](Footer.EncodedLength)
    bloomFilter.foreach(_.encode(b, Footer.BloomOffset))
    index.encode(b, Footer.IndexOffset)
    LittleEndian.putLong(b, Footer.RecordCountOffset, recordCount)
    FooterTail.write(b, Footer.VersionOffset, Footer.CrcOffset, Footer.MagicOffset, Footer.Magic, Footer.FormatVersion)
    b
  }
}

object Footer {

  /** "LMNASORT" read as a little-endian u64. */
  val Magic: Long = LittleEndian.getLong("LMNASORT".getBytes("US-ASCII"), 0)

  /** 2: blocked bloom filter (version 1 probed the whole bit array). */
  val FormatVersion: Int = 2

  val BloomOffset: Int = 0
  val IndexOffset: Int = BloomOffset + BloomFilterHandle.EncodedLength
  val RecordCountOffset: Int = IndexOffset + BlockHandle.EncodedLength
  val VersionOffset: Int = RecordCountOffset + LittleEndian.LongBytes
  val CrcOffset: Int = VersionOffset + LittleEndian.IntBytes
  val MagicOffset: Int = CrcOffset + LittleEndian.IntBytes
  val EncodedLength: Int = MagicOffset + LittleEndian.LongBytes

  /** Decodes the footer read from `fileOffset` (= file length - EncodedLength); checks magic, CRC,
   *  version, and that both handles point inside [0, fileOffset). */
  def decode(b: Array[Byte], path: String, fileOffset: Long): Footer = {
    FooterTail.check(b, path, fileOffset, VersionOffset, CrcOffset, MagicOffset, Magic, FormatVersion, "sort")
    val index = BlockHandle.decode(b, IndexOffset, fileOffset, path, fileOffset + IndexOffset)
    val bloomAbsent = (0 until BloomFilterHandle.EncodedLength).forall(i => b(BloomOffset + i) == 0)
    val expectedEntriesOffset = BloomOffset + BlockHandle.EncodedLength
    val expectedEntries = LittleEndian.getLong(b, expectedEntriesOffset)
    val bloom =
      if (bloomAbsent) None
      else {
        if (expectedEntries < 1)
          throw new CorruptFileException(path, fileOffset + expectedEntriesOffset, "bloom filter expected entries >= 1",
            s"$expectedEntries", "footer")
        Some(BloomFilterHandle(BlockHandle.decode(b, BloomOffset, index.offset, path, fileOffset + BloomOffset), expectedEntries))
      }
    val recordCount = LittleEndian.getLong(b, RecordCountOffset)
    if (recordCount < 0)
      throw new CorruptFileException(path, fileOffset + RecordCountOffset, "a record count >= 0",
        s"$recordCount", "footer")
    Footer(bloom, index, recordCount)
  }
}
