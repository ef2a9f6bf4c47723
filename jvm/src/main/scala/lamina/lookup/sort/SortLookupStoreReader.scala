package lamina.lookup.sort

import java.io.File

import lamina.errors.CorruptFileException
import lamina.lookup.{KeyComparator, LookupStoreReader}
import lamina.lookup.bloom.FileBasedBloomFilter
import lamina.lookup.cache.{BlockCache, CacheKey, CacheManager}
import lamina.lookup.io.{KeyHash, LocalFileInput}

/** Reads a sort lookup file: bloom filter test, binary search of the index block, binary search of one
 *  data block. Blocks are read through a [[BlockCache]]; `lookup` and iterators are safe to use from
 *  many threads at once (each iterator on one thread). */
final class SortLookupStoreReader(file: File, cacheManager: CacheManager, comparator: KeyComparator)
  extends LookupStoreReader {
  private val input = new LocalFileInput(file)
  val path: String = input.path

  val footer: Footer = try {
    if (input.length < Footer.EncodedLength)
      throw new CorruptFileException(path, 0, s"at least ${Footer.EncodedLength} bytes (a footer)",
        s"${input.length} bytes", "file too short")
    val footerOffset = input.length - Footer.EncodedLength
    Footer.decode(input.read(footerOffset, Footer.EncodedLength), path, footerOffset)
  } catch { case e: Throwable => input.close(); throw e }

  private val blockCache = new BlockCache(input, cacheManager)
  private val indexHandle = footer.index
  /** Data blocks lie before the bloom filter (or the index block when there is none). */
  private val dataLimit: Long = footer.bloomFilter.map(_.handle.offset).getOrElse(indexHandle.offset)

  private val bloomFilter: FileBasedBloomFilter = footer.bloomFilter.map { bh =>
    val h = bh.handle
    new FileBasedBloomFilter(cacheManager, CacheKey.forPosition(path, h.offset, h.storedLength, isIndex = true),
      bh.expectedEntries, () => {
        val bits = StoredBlock.decode(input.read(h.offset, h.storedLength), path, h.offset)
        if (bits.isEmpty) throw new CorruptFileException(path, h.offset, "a bloom filter of at least 1 byte",
          "0 bytes", "bloom filter")
        bits
      })
  }.orNull

  private def readBlock(h: BlockHandle, isIndex: Boolean): Array[Byte] =
    blockCache.getBlock(h.offset, h.storedLength, isIndex, stored => StoredBlock.decode(stored, path, h.offset))

  // The index block is read on every lookup: its key and loader are built once.
  private val indexKey = CacheKey.forPosition(path, indexHandle.offset, indexHandle.storedLength, isIndex = true)
  private val loadIndex: () => Array[Byte] =
    () => StoredBlock.decode(input.read(indexHandle.offset, indexHandle.storedLength), path, indexHandle.offset)

  private def indexReader(): BlockReader =
    new BlockReader(blockCache.getPage(indexKey, loadIndex), comparator, path, indexHandle.offset)

  private def dataReader(h: BlockHandle): BlockReader =
    new BlockReader(readBlock(h, isIndex = false), comparator, path, h.offset)

  // Reading the index block once at open rejects a damaged index before the first lookup.
  try indexReader()
  catch { case e: Throwable => try blockCache.close() finally input.close(); throw e }

  def recordCount: Long = footer.recordCount

  override def lookup(key: Array[Byte]): Array[Byte] = {
    if (bloomFilter != null && !bloomFilter.testHash(KeyHash.hash64(key))) return null
    val index = indexReader()
    if (index.lowerBound(key) == index.count) return null
    dataReader(index.currentHandle(dataLimit)).find(key)
  }

  /** All entries in key order, from the first. */
  def iterator(): SortedEntryIterator = new SortedEntryIterator

  /** Iterates entries in key order; `seek` positions it at the first key >= the target. */
  final class SortedEntryIterator extends Iterator[(Array[Byte], Array[Byte])] {
    private val index = indexReader()
    private var blockIndex = 0
    private var block: BlockReader = _
    private var entry = 0

    def seek(key: Array[Byte]): Unit = {
      blockIndex = index.lowerBound(key)
      block = null
      if (blockIndex < index.count) {
        load()
        entry = block.lowerBound(key)
      }
    }

    private def load(): Unit = {
      index.decode(blockIndex)
      block = dataReader(index.currentHandle(dataLimit))
      entry = 0
    }

    override def hasNext: Boolean = {
      while (blockIndex < index.count && (block == null || entry >= block.count)) {
        if (block != null) blockIndex += 1
        block = null
        if (blockIndex < index.count) load()
      }
      blockIndex < index.count
    }

    override def next(): (Array[Byte], Array[Byte]) = {
      if (!hasNext) throw new NoSuchElementException("end of lookup file")
      block.decode(entry)
      entry += 1
      (block.currentKey(), block.currentValue())
    }
  }

  override def close(): Unit = {
    try {
      if (bloomFilter != null) bloomFilter.close()
      blockCache.close()
    } finally input.close()
  }
}
