package lamina.lookup.hash

import java.io.File
import java.util.zip.CRC32C

import lamina.errors.CorruptFileException
import lamina.lookup.LookupStoreReader
import lamina.lookup.cache.{BlockCache, CacheKey, CacheManager}
import lamina.lookup.io.{Checksums, KeyHash, LittleEndian, LocalFileInput, VarInt}

/** Reads a hash lookup file: hash the key, probe the slots of its length, read the record.
 *
 * Slot pages go through the index pool (position keys), data pages through the data pool (page keys
 * of `pageSize`). Every probed slot and every record read is checked against its CRC32C.
 * Safe for concurrent use.
 */
final class HashLookupStoreReader(file: File, cacheManager: CacheManager, pageSize: Int) extends LookupStoreReader {
  private val input = new LocalFileInput(file)
  val path: String = input.path

  private val (footer, sections) = try {
    val minLength = HashFileHeader.EncodedLength + HashFooter.EncodedLength
    if (input.length < minLength)
      throw new CorruptFileException(path, 0, s"at least $minLength bytes (header and footer)",
        s"${input.length} bytes", "file too short")
    HashFileHeader.verify(input.read(0, HashFileHeader.EncodedLength), path)
    val footerOffset = input.length - HashFooter.EncodedLength
    val f = HashFooter.decode(input.read(footerOffset, HashFooter.EncodedLength), path, footerOffset)
    val s = HashSection.decodeTable(input.read(f.tableOffset, f.tableLength), path, f.tableOffset, f.dataEnd)
    val slotsEnd = s.lastOption.map(x => x.slotsOffset + x.regionLength).getOrElse(f.dataEnd)
    if (slotsEnd != f.tableOffset || s.map(_.keyCount).sum != f.recordCount)
      throw new CorruptFileException(path, f.tableOffset, s"slots ending at ${f.tableOffset} holding ${f.recordCount} keys",
        s"slots ending at $slotsEnd holding ${s.map(_.keyCount).sum} keys", "hash section table")
    (f, s)
  } catch { case e: Throwable => input.close(); throw e }

  private val byLength: Array[HashSection] = {
    val a = new Array[HashSection](sections.lastOption.map(_.keyLength + 1).getOrElse(0))
    sections.foreach(s => a(s.keyLength) = s)
    a
  }
  private val blockCache = new BlockCache(input, cacheManager)

  def recordCount: Long = footer.recordCount

  override def lookup(key: Array[Byte]): Array[Byte] = {
    if (key.length >= byLength.length) return null
    val section = byLength(key.length)
    if (section == null) return null
    val len = key.length
    val slotSize = section.slotSize
    val slotsPerPage = math.max(1, pageSize / slotSize)
    var slot = java.lang.Long.remainderUnsigned(KeyHash.hash64(key), section.slotCount)
    var probes = 0L
    while (probes < section.slotCount) {
      val pageIndex = slot / slotsPerPage
      val page = slotPage(section, pageIndex, slotsPerPage)
      val p = ((slot - pageIndex * slotsPerPage) * slotSize).toInt
      val expected = LittleEndian.getInt(page, p + len + HashSection.OffsetBytes)
      val actual = Checksums.crc32c(page, p, len + HashSection.OffsetBytes)
      if (expected != actual)
        throw new CorruptFileException(path, section.slotsOffset + slot * slotSize, s"CRC32C ${Checksums.hex(expected)}",
          s"CRC32C ${Checksums.hex(actual)}", "hash slot")
      val recordOffset = LittleEndian.getLong(page, p + len)
      if (recordOffset == 0) return null
      if (java.util.Arrays.equals(page, p, p + len, key, 0, len)) return readRecord(key, recordOffset)
      slot = if (slot + 1 == section.slotCount) 0 else slot + 1
      probes += 1
    }
    throw new CorruptFileException(path, section.slotsOffset, "an empty slot", "all slots full", "hash section")
  }

  private def slotPage(section: HashSection, pageIndex: Long, slotsPerPage: Int): Array[Byte] = {
    val first = pageIndex * slotsPerPage
    val slots = math.min(slotsPerPage.toLong, section.slotCount - first).toInt
    val offset = section.slotsOffset + first * section.slotSize
    val length = slots * section.slotSize
    blockCache.getPage(CacheKey.forPosition(path, offset, length, isIndex = true), () => input.read(offset, length))
  }

  /** Record: varint value length, value, u32 CRC32C of key ++ varint ++ value. */
  private def readRecord(key: Array[Byte], offset: Long): Array[Byte] = {
    if (offset < HashFileHeader.EncodedLength || offset >= footer.dataEnd)
      throw new CorruptFileException(path, offset, s"a record offset within [${HashFileHeader.EncodedLength}, ${footer.dataEnd})",
        s"$offset", "hash slot")
    val headerBytes = readData(offset, math.min(VarInt.MaxBytes.toLong, footer.dataEnd - offset).toInt)
    val v = VarInt.read(headerBytes, 0, headerBytes.length)
    if (v < 0) throw new CorruptFileException(path, offset, "a value length", "a malformed varint", "hash record")
    val headerLen = VarInt.length(v)
    val valueLen = VarInt.value(v)
    val bodyOffset = offset + headerLen
    if (bodyOffset + valueLen + HashSection.CrcBytes > footer.dataEnd)
      throw new CorruptFileException(path, offset, s"a record ending by ${footer.dataEnd}",
        s"a record of ${valueLen} value bytes ending at ${bodyOffset + valueLen + HashSection.CrcBytes}", "hash record")
    val body = readData(bodyOffset, valueLen + HashSection.CrcBytes)
    val crc = new CRC32C()
    crc.update(key)
    crc.update(headerBytes, 0, headerLen)
    crc.update(body, 0, valueLen)
    val expected = LittleEndian.getInt(body, valueLen)
    if (expected != crc.getValue.toInt)
      throw new CorruptFileException(path, offset, s"CRC32C ${Checksums.hex(expected)}",
        s"CRC32C ${Checksums.hex(crc.getValue.toInt)}", "hash record")
    java.util.Arrays.copyOf(body, valueLen)
  }

  /** Bytes [offset, offset + len) of the data section, gathered from cached pages of `pageSize`. */
  private def readData(offset: Long, len: Int): Array[Byte] = {
    val result = new Array[Byte](len)
    var done = 0
    while (done < len) {
      val pos = offset + done
      val pageIndex = pos / pageSize
      val pageStart = pageIndex * pageSize
      val pageLen = math.min(pageSize.toLong, footer.dataEnd - pageStart).toInt
      val page = blockCache.getPage(CacheKey.forPageIndex(path, pageSize, Math.toIntExact(pageIndex)),
        () => input.read(pageStart, pageLen))
      val from = (pos - pageStart).toInt
      val n = math.min(len - done, page.length - from)
      System.arraycopy(page, from, result, done, n)
      done += n
    }
    result
  }

  override def close(): Unit =
    try blockCache.close()
    finally input.close()
}
