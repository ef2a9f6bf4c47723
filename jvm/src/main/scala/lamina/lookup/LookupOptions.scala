package lamina.lookup

import java.util.Locale

import lamina.errors.BadInputException
import lamina.lookup.compression.CompressionType

/** Kind of local lookup file: a sorted block file or a write-once hash file. */
sealed abstract class LocalFileType(val name: String)

object LocalFileType {
  case object Sort extends LocalFileType("sort")
  case object Hash extends LocalFileType("hash")
  val values: Seq[LocalFileType] = Seq(Sort, Hash)
}

/** Options of the local lookup store and its cache.
 *
 * Every option is described once in [[LookupOptions.definitions]] (key, type, default, doc);
 * the table-options registry imports these definitions rather than restating them.
 */
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

  /** One option: its key, value type, default as a user would write it, and documentation. */
  final case class OptionDefinition(key: String, valueType: String, default: String, doc: String)

  val CachePageSize: OptionDefinition = OptionDefinition(
    "cache-page-size", "MemorySize", "64 kb",
    "Target size of a data block of a sort lookup file and the page size of a hash lookup file; " +
      "the unit of reading and caching.")
  val BloomFilterEnabled: OptionDefinition = OptionDefinition(
    "lookup.bloom-filter.enabled", "Boolean", "true",
    "Whether a sort lookup file carries a bloom filter over its keys, so most misses read no data block.")
  val BloomFilterFpp: OptionDefinition = OptionDefinition(
    "lookup.bloom-filter.fpp", "Double", "0.05",
    "Target false positive probability of the bloom filter, in (0, 1).")
  val LocalFileTypeOption: OptionDefinition = OptionDefinition(
    "lookup.local-file-type", "Enum (sort, hash)", "sort",
    "Format of local lookup files: 'sort' (sorted blocks, index, bloom filter; keeps key order) or " +
      "'hash' (write-once open-addressing hash file).")
  val CacheMaxMemorySize: OptionDefinition = OptionDefinition(
    "lookup.cache-max-memory-size", "MemorySize", "256 mb",
    "Bytes of decoded blocks and pages the lookup cache may hold, index and data pools together; " +
      "arrays of evicted pages kept for reuse come on top, up to an eighth of this size (16 MiB at most), and so " +
      "does a sort lookup file's index block or bloom filter larger than its pool, which the file's reader keeps " +
      "while open rather than read it again on every lookup.")
  val HighPriorityPoolRatio: OptionDefinition = OptionDefinition(
    "lookup.cache.high-priority-pool-ratio", "Double", "0.25",
    "Share of the cache reserved for index blocks and bloom filters, in [0, 1); 0 means one pool shared by all. " +
      "An index block or bloom filter larger than this pool is kept by its reader, beyond the cache's size.")
  val SpillCompression: OptionDefinition = OptionDefinition(
    "lookup.cache-spill-compression", "Enum (none, zstd, lz4)", "zstd",
    "Compression of blocks of local lookup files; a block stays uncompressed unless compression saves 1/8. " +
      "After four data blocks in a row that it did not, a writer tries only every sixteenth block until one does.")

  val BackgroundCompression: OptionDefinition = OptionDefinition(
    "lookup.background-compression", "Boolean", "true",
    "Whether a sort lookup file's writer compresses and writes full data blocks on a second thread while " +
      "it fills the next one (only when blocks are compressed and at least 16 kb; the file's bytes are the same either way).")

  val definitions: Seq[OptionDefinition] = Seq(
    CachePageSize, BloomFilterEnabled, BloomFilterFpp, LocalFileTypeOption, CacheMaxMemorySize,
    HighPriorityPoolRatio, SpillCompression, BackgroundCompression)

  /** Largest accepted page size: a block offset table entry and a page index must fit an int. */
  val MaxCachePageSize: Long = 1L << 30

  /** Reads the options found in `map`; keys that are not lookup options are left to other registries.
   *  A value that does not parse or is out of range raises [[BadInputException]] naming the option. */
  def fromMap(map: Map[String, String]): LookupOptions = {
    val d = LookupOptions()
    def get[T](o: OptionDefinition, default: T)(parse: String => Option[T]): T =
      map.get(o.key) match {
        case None => default
        case Some(raw) =>
          parse(raw.trim).getOrElse(throw new BadInputException(
            s"Invalid value '$raw' for option '${o.key}': expected ${o.valueType}. ${o.doc}"))
      }
    val pageSize = get(CachePageSize, d.cachePageSize.toLong)(s =>
      parseMemorySize(s).filter(v => v >= 1 && v <= MaxCachePageSize))
    LookupOptions(
      cachePageSize = pageSize.toInt,
      bloomFilterEnabled = get(BloomFilterEnabled, d.bloomFilterEnabled)(parseBoolean),
      bloomFilterFpp = get(BloomFilterFpp, d.bloomFilterFpp)(s => s.toDoubleOption.filter(v => v > 0 && v < 1)),
      localFileType = get(LocalFileTypeOption, d.localFileType)(s =>
        LocalFileType.values.find(_.name == s.toLowerCase(Locale.ROOT))),
      cacheMaxMemorySize = get(CacheMaxMemorySize, d.cacheMaxMemorySize)(s => parseMemorySize(s).filter(_ >= 0)),
      highPriorityPoolRatio =
        get(HighPriorityPoolRatio, d.highPriorityPoolRatio)(s => s.toDoubleOption.filter(v => v >= 0 && v < 1)),
      compression = get(SpillCompression, d.compression)(s => CompressionType.fromName(s.toLowerCase(Locale.ROOT))),
      backgroundCompression = get(BackgroundCompression, d.backgroundCompression)(parseBoolean)
    )
  }

  private def parseBoolean(s: String): Option[Boolean] = s.toLowerCase(Locale.ROOT) match {
    case "true" => Some(true)
    case "false" => Some(false)
    case _ => None
  }

  private val MemorySizePattern = """(\d+)\s*([a-zA-Z]*)""".r

  /** Parses "65536", "64 kb", "64k", "256mb", "1 gb" (binary units) into bytes. */
  def parseMemorySize(s: String): Option[Long] = s match {
    case MemorySizePattern(digits, unit) =>
      val shift = unit.toLowerCase(Locale.ROOT) match {
        case "" | "b" | "bytes" => Some(0)
        case "k" | "kb" | "kib" => Some(10)
        case "m" | "mb" | "mib" => Some(20)
        case "g" | "gb" | "gib" => Some(30)
        case "t" | "tb" | "tib" => Some(40)
        case _ => None
      }
      for {
        sh <- shift
        n <- digits.toLongOption
        if n <= (Long.MaxValue >> sh)
      } yield n << sh
    case _ => None
  }
}
