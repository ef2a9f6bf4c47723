package lamina.lookup

import java.io.{Closeable, File}

import lamina.lookup.cache.{CacheCounters, CacheManager}
import lamina.lookup.hash.HashLookupStoreFactory
import lamina.lookup.sort.SortLookupStoreFactory

/** Writes one local lookup file. Not thread-safe. The arrays passed to `put` must not be changed
 *  afterwards until `close` returns. */
trait LookupStoreWriter extends Closeable {
  def put(key: Array[Byte], value: Array[Byte]): Unit

  /** Finishes the file; returns its length in bytes. */
  def finish(): Long

  override def close(): Unit = finish()
}

/** Reads one local lookup file. `lookup` is safe to call from many threads at once. */
trait LookupStoreReader extends Closeable {

  /** The value stored under `key`, or null when the key is absent. Raises
   *  [[lamina.errors.CorruptFileException]] rather than answer from damaged bytes. `counts` gets a hit
   *  or a miss for each page (block, bloom filter) the lookup needed. */
  def lookup(key: Array[Byte], counts: CacheCounters): Array[Byte]

  /** As above, uncounted. */
  final def lookup(key: Array[Byte]): Array[Byte] = lookup(key, CacheCounters.Ignored)
}

/** Creates writers and readers of one kind of local lookup file. */
trait LookupStoreFactory {

  /** `expectedEntries` sizes the bloom filter of a sort file (when one is written) and the key buffer a
   *  hash file's writer sets aside up front (at most 256 MiB); it need not be exact, but memory follows
   *  it, so it should not be far above the entries written. */
  def createWriter(file: File, expectedEntries: Long): LookupStoreWriter

  def createReader(file: File): LookupStoreReader
}

object LookupStoreFactory {

  /** The factory selected by `lookup.local-file-type`, reading through `cacheManager`. */
  def create(
      options: LookupOptions,
      cacheManager: CacheManager,
      comparator: KeyComparator = UnsignedBytesComparator): LookupStoreFactory =
    options.localFileType match {
      case LocalFileType.Sort => new SortLookupStoreFactory(options, cacheManager, comparator)
      case LocalFileType.Hash => new HashLookupStoreFactory(options, cacheManager)
    }
}
