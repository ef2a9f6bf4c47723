package lamina.lookup

import lamina.lookup.compression.CompressionType

/** Kind of local lookup file: a sorted block file or a write-once hash file. */
sealed abstract class LocalFileType(val name: String)

object LocalFileType {
  case object Sort extends LocalFileType("sort")
  case object Hash extends LocalFileType("hash")
  val values: Seq[LocalFileType] = Seq(Sort, Hash)
}

/** Options of the local lookup store and its cache, as typed values. The lookup store depends on
 *  nothing above it: the table's option registry declares these options (keys `cache-page-size` and
 *  `lookup.*`, their docs and defaults) and reads a table's options into this class; the defaults
 *  here are the registry's. */
final case class LookupOptions(
    cachePageSize: Int = LookupOptions.DefaultCachePageSize,
    bloomFilterEnabled: Boolean = true,
    bloomFilterFpp: Double = 0.05,
    localFileType: LocalFileType = LocalFileType.Sort,
    cacheMaxMemorySize: Long = LookupOptions.DefaultCacheMaxMemorySize,
    highPriorityPoolRatio: Double = 0.25,
    compression: CompressionType = CompressionType.Zstd,
    backgroundCompression: Boolean = true)

object LookupOptions {
  val DefaultCachePageSize: Int = 64 * 1024
  val DefaultCacheMaxMemorySize: Long = 256L * 1024 * 1024

  /** Largest accepted page size: a block offset table entry and a page index must fit an int. */
  val MaxCachePageSize: Long = 1L << 30
}
