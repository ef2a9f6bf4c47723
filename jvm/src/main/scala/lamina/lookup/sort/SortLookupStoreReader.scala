package lamina.lookup.sort

import java.io.File

import lamina.errors.CorruptFileException
import lamina.lookup.{KeyComparator, LookupStoreReader}
import lamina.lookup.bloom.{BloomFilter, FileBasedBloomFilter}
import lamina.lookup.cache.{BlockCache, CacheCounters, CacheKey, CacheManager, Page}
import lamina.lookup.io.{KeyHash, LocalFileInput}

/** Reads a sort lookup file: bloom filter test, binary search of the index block, binary search of one
 *  data block. Blocks are read through a [[BlockCache]]; `lookup` and iterators are safe to use from
 *  many threads at once (each iterator on one thread). */
final class SortLookupStoreReader(file: File, cacheManager: CacheManager, comparator: KeyComparator) extends LookupStoreReader {
  private val input = new LocalFileInput(file)
  val path: String = input.path

  val footer: Footer =
    try {
      if (input.length < Footer.EncodedLength)
        throw new CorruptFileException(path, 0, s"at least ${Footer.EncodedLength} bytes (a footer)",
          s"${input.length} bytes", "file too short")
      val footerOffset = input.length - Footer.EncodedLength
      Footer.decode(input.read(footerOffset, Footer.EncodedLength), path, footerOffset)
    } catch { case e: Throwable => input.close(); throw e }

  private val indexHandle = footer.index

  /** Where the footer's record count lies: the offset a count that does not hold is reported at. */
  private val recordCountOffset: Long = input.length - Footer.EncodedLength + Footer.RecordCountOffset

  /** Data blocks lie before the bloom filter (or the index block when there is none). */
  private val dataLimit: Long = footer.bloomFilter.map(_.handle.offset).getOrElse(indexHandle.offset)

  private val decodeBlock = BlockCache.Decoded((offset, stored, allocate) =>
    StoredBlock.decodePage(stored, path, offset, allocate))
  private val blockView: (Long, Page) => BlockReader = (offset, page) => new BlockReader(page, comparator, path, offset)

  /** Reading the index block at open rejects a damaged index before the first lookup, and numbers the
   *  data blocks: slot i of the block cache holds data block i, the last slot the index block. An index
   *  block the manager's index pool cannot hold (see [[CacheManager.fits]]) is kept from here on, beyond
   *  the budget, rather than evicted as soon as it is inserted and read again on every lookup. */
  private val opened: SortLookupStoreReader.OpenedIndex =
    try {
      val at = indexHandle.offset
      val index = blockView(at, Page.of(StoredBlock.decode(input.read(at, indexHandle.storedLength), path, at)))
      checkRecordCount(index.count)
      val weight = index.page.heldBytes.toLong + index.derivedBytes
      if (cacheManager.fits(isIndex = true, weight)) SortLookupStoreReader.OpenedIndex(index.count, null, 0)
      else {
        cacheManager.holdBeyondBudget(weight)
        SortLookupStoreReader.OpenedIndex(index.count, index, weight)
      }
    } catch { case e: Throwable => input.close(); throw e }
  private val dataBlockCount = opened.count

  /** The index block when kept here, else null: it is read through the cache. */
  private val heldIndex: BlockReader = opened.held
  private val indexSlot = dataBlockCount
  private val blockCache = new BlockCache(input, cacheManager, dataBlockCount + 1)

  private val bloomFilter: FileBasedBloomFilter = footer.bloomFilter.map { bh =>
    val h = bh.handle
    new FileBasedBloomFilter(cacheManager, CacheKey.forPosition(path, h.offset, h.storedLength, isIndex = true),
      h.size, bh.expectedEntries,
      () => {
        val bits = StoredBlock.decode(input.read(h.offset, h.storedLength), path, h.offset)
        if (!BloomFilter.isValidSize(bits.length)) throw new CorruptFileException(path, h.offset,
          s"a bloom filter of whole ${BloomFilter.BlockBytes}-byte blocks", s"${bits.length} bytes", "bloom filter")
        bits
      })
  }.orNull

  /** A data block holds at least one entry (only an empty file's index block is empty), so the footer
   *  counts at least one record per data block, and none when there is none: checked at open, for free. */
  private def checkRecordCount(dataBlocks: Int): Unit =
    if (footer.recordCount < dataBlocks || (dataBlocks == 0 && footer.recordCount != 0))
      throw new CorruptFileException(path, recordCountOffset,
        if (dataBlocks == 0) "a record count of 0 (no data blocks)"
        else s"a record count of at least $dataBlocks (one per data block)",
        s"${footer.recordCount}", "footer record count")

  /** The index block; one kept here counts as a hit. */
  private def indexBlock(counts: CacheCounters): BlockReader =
    if (heldIndex != null) { counts.hit(); heldIndex }
    else blockCache.getSlot(indexSlot, indexHandle.offset, indexHandle.storedLength, isIndex = true, decodeBlock, blockView,
      counts = counts)

  /** Whether this reader keeps its index block or bloom filter itself, beyond the cache's budget,
   *  because the index pool cannot hold it. */
  def heldBeyondBudget: Boolean = heldIndex != null || (bloomFilter != null && bloomFilter.heldBeyondBudget)

  /** Data block i, whose handle is entry i of `index`. Its array may be recycled while read: read it
   *  through [[onDataBlock]]. */
  private def dataBlock(index: BlockReader, i: Int, counts: CacheCounters = CacheCounters.Ignored): BlockReader = {
    val h = index.handle(i, dataLimit)
    blockCache.getSlot(i, h.offset, h.storedLength, isIndex = false, decodeBlock, blockView, reusable = true,
      counts = counts)
  }

  /** `read(block)` for data block i, starting with `block` (null: fetch it); the block read goes into
   *  `use` with the result. A read that a recycling of the block's array may have spoiled (the view is
   *  no longer current) is discarded, its exception too, and repeated on the block fetched again. */
  private def onDataBlock[T](index: BlockReader, i: Int, block: BlockReader,
      counts: CacheCounters = CacheCounters.Ignored)(read: BlockReader => T)(use: BlockReader => Unit): T = {
    var b = if (block != null) block else dataBlock(index, i, counts)
    while (true) {
      val r =
        try read(b)
        catch { case e: RuntimeException => if (b.isCurrent) throw e else null.asInstanceOf[T] }
      if (b.isCurrent) { use(b); return r }
      b = dataBlock(index, i, counts)
    }
    throw new IllegalStateException("unreachable")
  }

  private val NoUse: BlockReader => Unit = _ => ()

  def recordCount: Long = footer.recordCount

  override def lookup(key: Array[Byte], counts: CacheCounters): Array[Byte] = {
    if (bloomFilter != null && !bloomFilter.testHash(KeyHash.hash64(key), counts)) return null
    val index = indexBlock(counts)
    val i = index.lowerBound(key)
    if (i == index.count) null else onDataBlock(index, i, null, counts)(_.find(key))(NoUse)
  }

  /** All entries in key order, from the first. */
  def iterator(): SortedEntryIterator = new SortedEntryIterator

  /** Iterates entries in key order; `seek` positions it at the first key >= the target. An iteration
   *  from the first entry to the end (no seek) checks the entries it found against the footer's record
   *  count, and raises [[CorruptFileException]] at the end when they differ. */
  final class SortedEntryIterator extends Iterator[(Array[Byte], Array[Byte])] {
    private val index = indexBlock(CacheCounters.Ignored)
    private var blockIndex = 0
    private var block: BlockReader = _
    private var entry = 0

    /** Entries returned, while the iteration is a full one (-1 after a seek). */
    private var returned = 0L

    def seek(key: Array[Byte]): Unit = {
      returned = -1
      blockIndex = index.lowerBound(key)
      block = null
      if (blockIndex < index.count) entry = onDataBlock(index, blockIndex, null)(_.lowerBound(key))(block = _)
    }

    override def hasNext: Boolean = {
      while (blockIndex < index.count && (block == null || entry >= block.count)) {
        if (block != null) blockIndex += 1
        block = null
        if (blockIndex < index.count) {
          block = dataBlock(index, blockIndex)
          entry = 0
        }
      }
      val more = blockIndex < index.count
      if (!more && returned >= 0 && returned != footer.recordCount)
        throw new CorruptFileException(path, recordCountOffset, s"${footer.recordCount} records (the footer's count)",
          s"$returned records in a full iteration", "footer record count")
      more
    }

    override def next(): (Array[Byte], Array[Byte]) = {
      if (!hasNext) throw new NoSuchElementException("end of lookup file")
      entry += 1
      if (returned >= 0) returned += 1
      val e = entry - 1
      onDataBlock(index, blockIndex, block)(b => (b.key(e), b.value(e)))(block = _)
    }
  }

  private val released = new java.util.concurrent.atomic.AtomicBoolean()

  override def close(): Unit = {
    try {
      if (bloomFilter != null) bloomFilter.close()
      blockCache.close()
    } finally {
      input.close()
      if (released.compareAndSet(false, true)) cacheManager.holdBeyondBudget(-opened.heldBytes)
    }
  }
}

private object SortLookupStoreReader {

  /** The index block as read at open: its entry count (the data blocks), and the block itself when its
   *  reader keeps it, with the bytes counted beyond the budget (else null and 0). */
  final case class OpenedIndex(count: Int, held: BlockReader, heldBytes: Long)
}
