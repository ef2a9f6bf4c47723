package lamina.lookup.hash

import java.io.File

import lamina.errors.CorruptFileException
import lamina.lookup.LookupStoreReader
import lamina.lookup.cache.{BlockCache, CacheCounters, CacheManager, Page, RawPage}
import lamina.lookup.io.{Checksums, KeyHash, LittleEndian, LocalFileInput, VarInt}

/** Reads a hash lookup file: hash the key, probe the slots of its length, read the record.
 *
 * The file's pages (of the page size it was written with) are the unit of caching and checking: slot
 * pages go through the index pool (position keys), data pages through the data pool (page keys), and
 * each page is checked against its CRC32C when loaded. Safe for concurrent use.
 */
final class HashLookupStoreReader(file: File, cacheManager: CacheManager) extends LookupStoreReader {
  private val input = new LocalFileInput(file)
  val path: String = input.path

  private val (footer, sections, sums) =
    try {
      val minLength = HashFileHeader.EncodedLength + HashFooter.EncodedLength
      if (input.length < minLength)
        throw new CorruptFileException(path, 0, s"at least $minLength bytes (header and footer)",
          s"${input.length} bytes", "file too short")
      HashFileHeader.verify(input.read(0, HashFileHeader.EncodedLength), path)
      val footerOffset = input.length - HashFooter.EncodedLength
      val f = HashFooter.decode(input.read(footerOffset, HashFooter.EncodedLength), path, footerOffset)
      val s = HashSection.decodeTable(input.read(f.tableOffset, f.tableLength), path, f.tableOffset, f.dataEnd)
      val slotsEnd = s.lastOption.map(x => x.slotsOffset + x.regionLength).getOrElse(f.dataEnd)
      val pages = (f.dataEnd + f.pageSize - 1) / f.pageSize + s.map(_.pageCount(f.pageSize)).sum
      val sumsLength = HashPageChecksums.encodedLength(pages)
      if (pages > Int.MaxValue / LittleEndian.IntBytes - 1 || slotsEnd + sumsLength != f.tableOffset ||
        s.map(_.keyCount).sum != f.recordCount)
        throw new CorruptFileException(path, f.tableOffset,
          s"slots and checksums of $pages pages ending at ${f.tableOffset} holding ${f.recordCount} keys",
          s"slots ending at $slotsEnd holding ${s.map(_.keyCount).sum} keys", "hash section table")
      (f, s, HashPageChecksums.decode(input.read(slotsEnd, sumsLength.toInt), pages.toInt, path, slotsEnd))
    } catch { case e: Throwable => input.close(); throw e }

  private val pageSize = footer.pageSize
  private val byLength: Array[HashSection] = {
    val a = new Array[HashSection](sections.lastOption.map(_.keyLength + 1).getOrElse(0))
    sections.foreach(s => a(s.keyLength) = s)
    a
  }

  /** Pages are numbered: the data section's first, then each section's slot pages. */
  private val dataPageCount: Int = Math.toIntExact((footer.dataEnd + pageSize - 1) / pageSize)
  private val slotsPerPage: Array[Int] = byLength.map(s => if (s == null) 0 else s.slotsPerPage(pageSize))
  private val firstSlotPage: Array[Int] = {
    val a = new Array[Int](byLength.length)
    var next = dataPageCount
    byLength.indices.foreach { len =>
      val s = byLength(len)
      if (s != null) {
        a(len) = next
        next += s.pageCount(pageSize).toInt
      }
    }
    a
  }
  private val blockCache = new BlockCache(input, cacheManager, sums.length)

  /** Pages are checked against their CRC32C as they are loaded (a page's cache slot is its number). */
  private val checked = BlockCache.AsStored { (page, offset, b, length) =>
    val actual = Checksums.crc32c(b, 0, length)
    if (actual != sums(page))
      throw new CorruptFileException(path, offset, s"CRC32C ${Checksums.hex(sums(page))}", s"CRC32C ${Checksums.hex(actual)}",
        if (page < dataPageCount) "hash data page" else "hash slot page")
  }
  private val rawView: (Long, Page) => RawPage = (_, p) => new RawPage(p)

  def recordCount: Long = footer.recordCount

  override def lookup(key: Array[Byte], counts: CacheCounters): Array[Byte] = {
    if (key.length >= byLength.length) return null
    val section = byLength(key.length)
    if (section == null) return null
    val len = key.length
    val slotSize = section.slotSize
    val slotsPerPage = this.slotsPerPage(len)
    var slot = section.homeSlot(KeyHash.hash64(key))
    var probes = 0L
    while (probes < section.slotCount) {
      val pageIndex = slot / slotsPerPage
      val page = slotPage(section, pageIndex.toInt, slotsPerPage, counts)
      val bytes = page.bytes
      val p = ((slot - pageIndex * slotsPerPage) * slotSize).toInt
      val recordOffset = LittleEndian.getLong(bytes, p + len)
      val matches = recordOffset != 0 && java.util.Arrays.equals(bytes, p, p + len, key, 0, len)
      if (page.isCurrent) { // else the page was refilled while read: read the slot again
        if (recordOffset == 0) return null
        if (matches) return readRecord(recordOffset, section.slotsOffset + slot * slotSize, counts)
        slot = if (slot + 1 == section.slotCount) 0 else slot + 1
        probes += 1
      }
    }
    throw new CorruptFileException(path, section.slotsOffset, "an empty slot", "all slots full", "hash section")
  }

  /** Slot page `pageIndex` of `section`; like a data page, read it then check it is still current. */
  private def slotPage(section: HashSection, pageIndex: Int, slotsPerPage: Int, counts: CacheCounters): RawPage = {
    val first = pageIndex.toLong * slotsPerPage
    val slots = math.min(slotsPerPage.toLong, section.slotCount - first).toInt
    val offset = section.slotsOffset + first * section.slotSize
    val length = slots * section.slotSize
    blockCache.getSlot(firstSlotPage(section.keyLength) + pageIndex, offset, length, isIndex = true, checked, rawView,
      reusable = true, counts = counts)
  }

  /** Data page `pageIndex` (the last one may be short), cached under a page key. Its array may be
   *  reused for another page while read: what is read counts only if the page is still current after. */
  private def dataPage(pageIndex: Int, counts: CacheCounters): RawPage = {
    val pageStart = pageIndex.toLong * pageSize
    val pageLen = math.min(pageSize.toLong, footer.dataEnd - pageStart).toInt
    blockCache.getSlot(pageIndex, pageStart, pageLen, isIndex = false, checked, rawView, pageKeySize = pageSize,
      reusable = true, counts = counts)
  }

  /** Record: varint value length, value. `slotOffset` is where the slot pointing at it sits. */
  private def readRecord(offset: Long, slotOffset: Long, counts: CacheCounters): Array[Byte] = {
    if (offset < HashFileHeader.EncodedLength || offset >= footer.dataEnd)
      throw new CorruptFileException(path, slotOffset,
        s"a record offset within [${HashFileHeader.EncodedLength}, ${footer.dataEnd})",
        s"$offset", "hash slot")
    val pageIndex = (offset / pageSize).toInt
    val at = (offset - pageIndex.toLong * pageSize).toInt
    // Most records lie within one page: read them in place (null: they do not).
    var value: Array[Byte] = null
    var page: RawPage = null
    do {
      page = dataPage(pageIndex, counts)
      val bytes = page.bytes
      val v = VarInt.read(bytes, at, page.length)
      value = null
      if (v >= 0) {
        val body = at + VarInt.length(v)
        val valueLen = VarInt.value(v)
        if (valueLen <= page.length - body) value = java.util.Arrays.copyOfRange(bytes, body, body + valueLen)
      }
    } while (!page.isCurrent)
    if (value != null) return value
    val headerBytes = readData(offset, math.min(VarInt.MaxBytes.toLong, footer.dataEnd - offset).toInt, counts)
    val h = VarInt.read(headerBytes, 0, headerBytes.length)
    if (h < 0) throw new CorruptFileException(path, offset, "a value length", "a malformed varint", "hash record")
    val bodyOffset = offset + VarInt.length(h)
    val valueLen = VarInt.value(h)
    if (bodyOffset + valueLen > footer.dataEnd)
      throw new CorruptFileException(path, offset, s"a record ending by ${footer.dataEnd}",
        s"a record of $valueLen value bytes ending at ${bodyOffset + valueLen}", "hash record")
    readData(bodyOffset, valueLen, counts)
  }

  /** Bytes [offset, offset + len) of the data section, gathered from cached pages. */
  private def readData(offset: Long, len: Int, counts: CacheCounters): Array[Byte] = {
    val result = new Array[Byte](len)
    var done = 0
    while (done < len) {
      val pos = offset + done
      val pageIndex = pos / pageSize
      val pageStart = pageIndex * pageSize
      val page = dataPage(pageIndex.toInt, counts)
      val from = (pos - pageStart).toInt
      val n = math.min(len - done, page.length - from)
      System.arraycopy(page.bytes, from, result, done, n)
      if (page.isCurrent) done += n // else read the page again
    }
    result
  }

  override def close(): Unit =
    try blockCache.close()
    finally input.close()
}
