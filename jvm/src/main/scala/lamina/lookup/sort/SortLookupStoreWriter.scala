package lamina.lookup.sort

import java.io.File

import lamina.errors.BadInputException
import lamina.lookup.{KeyComparator, LookupOptions, LookupStoreWriter}
import lamina.lookup.bloom.{BloomFilter, BloomFilterBuilder}
import lamina.lookup.compression.CompressionType
import lamina.lookup.io.{KeyHash, LocalFileOutput}

/** Writes a sort lookup file (format: docs/format/lookup-store.md).
 *
 * Keys must arrive in strictly ascending order of `comparator`. A data block is cut once it holds
 * more than `cache-page-size` bytes; the index block maps each data block's last key to its handle.
 * Invariant: every key written is greater than the last key of every earlier data block.
 */
final class SortLookupStoreWriter(
    file: File,
    options: LookupOptions,
    expectedEntries: Long,
    comparator: KeyComparator)
  extends LookupStoreWriter {
  private val out = new LocalFileOutput(file)
  private val blockSize = options.cachePageSize
  private val indexBlock = new BlockWriter(1024)
  private val scratch = new StoredBlock.Scratch
  private val blocks: DataBlockSink = {
    val capacity = blockSize + blockSize / 4
    if (options.backgroundCompression && options.compression != CompressionType.None &&
      blockSize >= DataBlockSink.MinBackgroundBlockSize)
      new DataBlockSink.Background(capacity, options.compression, out, indexBlock, file.getName)
    else new DataBlockSink.Inline(capacity, options.compression, out, indexBlock)
  }
  private var dataBlock = blocks.current
  private val bloomFilter =
    if (options.bloomFilterEnabled) new BloomFilterBuilder(BloomFilter.create(expectedEntries, options.bloomFilterFpp))
    else null
  private var lastKey: Array[Byte] = _
  private var recordCount = 0L
  private var finished = -1L

  /** Set once `finish` has started: the file is complete (finished >= 0) or failed and closed. */
  private var closed = false

  override def put(key: Array[Byte], value: Array[Byte]): Unit = {
    if (closed) throw new IllegalStateException(s"Lookup file ${file.getPath} is already finished")
    if (lastKey != null && comparator.compare(lastKey, key) >= 0)
      throw new BadInputException(
        s"Keys of lookup file ${file.getPath} must be put in strictly ascending order: key ${hex(key)} " +
          s"after ${hex(lastKey)}")
    dataBlock.add(key, value)
    if (bloomFilter != null) bloomFilter.add(KeyHash.hash64(key))
    lastKey = key
    recordCount += 1
    if (dataBlock.memory > blockSize) dataBlock = blocks.submit(lastKey)
  }

  override def finish(): Long = {
    if (closed && finished < 0)
      throw new IllegalStateException(s"Writing lookup file ${file.getPath} failed; it is incomplete")
    if (!closed) {
      closed = true
      try {
        blocks.drain(lastKey)
        val bloomHandle = Option(bloomFilter).map(_.finish()).map { bf =>
          val handle = BlockHandle(out.position, bf.bits.length)
          val stored = StoredBlock.encode(bf.bits, bf.bits.length, CompressionType.None, scratch)
          out.write(scratch.bytes, 0, stored)
          BloomFilterHandle(handle, math.max(1L, expectedEntries))
        }
        val indexHandle = DataBlockSink.writeBlock(indexBlock, options.compression, scratch, out)
        out.write(Footer(bloomHandle, indexHandle, recordCount).encode())
        finished = out.position
      } finally out.close()
    }
    finished
  }

  private def hex(b: Array[Byte]): String = {
    val shown = b.take(32).map(x => f"${x & 0xff}%02x").mkString
    if (b.length > 32) s"0x$shown... (${b.length} bytes)" else s"0x$shown"
  }
}
