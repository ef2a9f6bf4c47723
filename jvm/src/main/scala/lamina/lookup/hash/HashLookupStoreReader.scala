package lamina.lookup.hash

import java.io.File
import java.util.zip.CRC32C

import lamina.errors.CorruptFileException
import lamina.lookup.LookupStoreReader
import lamina.lookup.cache.{BlockCache, CacheManager, RawPage}
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
  /** Pages are numbered: the data section's pages of `pageSize` first, then each section's slot pages. */
  private val dataPageCount: Int = Math.toIntExact((footer.dataEnd + pageSize - 1) / pageSize)
  private val slotsPerPage: Array[Int] = byLength.map(s => if (s == null) 0 else math.max(1, pageSize / s.slotSize))
  private val firstSlotPage: Array[Int] = {
    val a = new Array[Int](byLength.length)
    var next = dataPageCount.toLong
    byLength.indices.foreach { len =>
      val s = byLength(len)
      if (s != null) {
        a(len) = next.toInt
        next += (s.slotCount + slotsPerPage(len) - 1) / slotsPerPage(len)
        if (next > Int.MaxValue) throw new CorruptFileException(path, footer.tableOffset,
          s"at most ${Int.MaxValue} pages of $pageSize bytes", s"$next pages", "hash section table")
      }
    }
    a
  }
  private val pageCount: Int = sections.lastOption.map { s =>
    firstSlotPage(s.keyLength) + ((s.slotCount + slotsPerPage(s.keyLength) - 1) / slotsPerPage(s.keyLength)).toInt
  }.getOrElse(dataPageCount)
  private val blockCache = new BlockCache(input, cacheManager, pageCount)
  private val rawView: (Long, Array[Byte]) => RawPage = (_, b) => new RawPage(b)

  def recordCount: Long = footer.recordCount

  override def lookup(key: Array[Byte]): Array[Byte] = {
    if (key.length >= byLength.length) return null
    val section = byLength(key.length)
    if (section == null) return null
    val len = key.length
    val slotSize = section.slotSize
    val slotsPerPage = this.slotsPerPage(len)
    var slot = java.lang.Long.remainderUnsigned(KeyHash.hash64(key), section.slotCount)
    var probes = 0L
    while (probes < section.slotCount) {
      val pageIndex = slot / slotsPerPage
      val page = slotPage(section, pageIndex.toInt, slotsPerPage)
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

  private def slotPage(section: HashSection, pageIndex: Int, slotsPerPage: Int): Array[Byte] = {
    val first = pageIndex.toLong * slotsPerPage
    val slots = math.min(slotsPerPage.toLong, section.slotCount - first).toInt
    val offset = section.slotsOffset + first * section.slotSize
    val length = slots * section.slotSize
    blockCache.getSlot(firstSlotPage(section.keyLength) + pageIndex, offset, length, isIndex = true, BlockCache.AsStored, rawView)
      .bytes
  }

  /** Data page `pageIndex` (the last one may be short), cached under a page key. */
  private def dataPage(pageIndex: Int): Array[Byte] = {
    val pageStart = pageIndex.toLong * pageSize
    val pageLen = math.min(pageSize.toLong, footer.dataEnd - pageStart).toInt
    blockCache.getSlot(pageIndex, pageStart, pageLen, isIndex = false, BlockCache.AsStored, rawView, pageKeySize = pageSize).bytes
  }

  /** Record: varint value length, value, u32 CRC32C of key ++ varint ++ value. */
  private def readRecord(key: Array[Byte], offset: Long): Array[Byte] = {
    if (offset < HashFileHeader.EncodedLength || offset >= footer.dataEnd)
      throw new CorruptFileException(path, offset, s"a record offset within [${HashFileHeader.EncodedLength}, ${footer.dataEnd})",
        s"$offset", "hash slot")
    val pageIndex = (offset / pageSize).toInt
    val page = dataPage(pageIndex)
    val at = (offset - pageIndex.toLong * pageSize).toInt
    // Most records lie within one page: read them in place.
    val v = VarInt.read(page, at, page.length)
    if (v >= 0) {
      val body = at + VarInt.length(v)
      val valueLen = VarInt.value(v)
      if (valueLen.toLong + HashSection.CrcBytes <= page.length - body) {
        checkRecord(key, offset, page, at, body - at, page, body, valueLen)
        return java.util.Arrays.copyOfRange(page, body, body + valueLen)
      }
    }
    val headerBytes = readData(offset, math.min(VarInt.MaxBytes.toLong, footer.dataEnd - offset).toInt)
    val h = VarInt.read(headerBytes, 0, headerBytes.length)
    if (h < 0) throw new CorruptFileException(path, offset, "a value length", "a malformed varint", "hash record")
    val headerLen = VarInt.length(h)
    val valueLen = VarInt.value(h)
    val bodyOffset = offset + headerLen
    if (bodyOffset + valueLen + HashSection.CrcBytes > footer.dataEnd)
      throw new CorruptFileException(path, offset, s"a record ending by ${footer.dataEnd}",
        s"a record of ${valueLen} value bytes ending at ${bodyOffset + valueLen + HashSection.CrcBytes}", "hash record")
    val body = readData(bodyOffset, valueLen + HashSection.CrcBytes)
    checkRecord(key, offset, headerBytes, 0, headerLen, body, 0, valueLen)
    java.util.Arrays.copyOf(body, valueLen)
  }

  /** Checks the CRC32C that follows the value at body[bodyOff + valueLen]. */
  private def checkRecord(key: Array[Byte], offset: Long, header: Array[Byte], headerOff: Int, headerLen: Int,
      body: Array[Byte], bodyOff: Int, valueLen: Int): Unit = {
    val crc = new CRC32C()
    crc.update(key)
    crc.update(header, headerOff, headerLen)
    crc.update(body, bodyOff, valueLen)
    val expected = LittleEndian.getInt(body, bodyOff + valueLen)
    if (expected != crc.getValue.toInt)
      throw new CorruptFileException(path, offset, s"CRC32C ${Checksums.hex(expected)}",
        s"CRC32C ${Checksums.hex(crc.getValue.toInt)}", "hash record")
  }

  /** Bytes [offset, offset + len) of the data section, gathered from cached pages of `pageSize`. */
  private def readData(offset: Long, len: Int): Array[Byte] = {
    val result = new Array[Byte](len)
    var done = 0
    while (done < len) {
      val pos = offset + done
      val pageIndex = pos / pageSize
      val pageStart = pageIndex * pageSize
      val page = dataPage(pageIndex.toInt)
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
