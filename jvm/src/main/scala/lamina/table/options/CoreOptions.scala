package lamina.table.options

import lamina.errors.BadInputException
import OptionKind._

/** The registry of every table, read and write option Lamina knows, with Apache Paimon's keys.
 *
 *  Resolution order for a value (first hit wins): the read/write option of the query, the session
 *  conf `spark.lamina.<key>`, the table's option (stored in its schema), the default here.
 *  `docs/options.md` is generated from this registry (`lamina.tools.OptionsDoc`). */
object CoreOptions {
  private val defs = scala.collection.mutable.LinkedHashMap.empty[String, OptionDef[_]]

  private def define[T](key: String, kind: OptionKind[T], default: String, doc: String): OptionDef[T] = {
    val d = OptionDef(key, kind, Option(default), doc)
    defs.put(key, d)
    d
  }

  val Bucket: OptionDef[Int] = define("bucket", IntKind, "-1",
    "Number of buckets per partition. -1 means bucket-unaware (append tables only); N > 0 hashes " +
      "the bucket key into N fixed buckets.")
  val BucketKey: OptionDef[Seq[String]] = define("bucket-key", ListKind, null,
    "Comma-separated columns whose hash picks a row's bucket. Defaults to the primary key minus the " +
      "partition columns; required for fixed-bucket append tables.")
  val PrimaryKey: OptionDef[Seq[String]] = define("primary-key", ListKind, null,
    "Comma-separated primary-key columns. Only read at CREATE TABLE, where it becomes part of the schema.")
  val FileFormat: OptionDef[String] = define("file.format", enumOf("parquet", "orc"), "parquet",
    "Format of data files.")
  val FileCompression: OptionDef[String] = define("file.compression",
    enumOf("zstd", "snappy", "lz4", "gzip", "none", "uncompressed"), "zstd",
    "Compression codec of data files.")
  val FileCompressionZstdLevel: OptionDef[Int] = define("file.compression.zstd-level", intBetween(1, 22), "1",
    "Level of zstd compression of data files (1 is fastest; higher levels write smaller files more slowly).")
  val ParquetWriterVersion: OptionDef[String] = define("parquet.writer.version", enumOf("v1", "v2"), "v2",
    "Parquet format version of data files: v2 pages encode integers as deltas (sorted keys and sequence " +
      "numbers shrink to a few bits each); v1 for readers that predate v2 encodings.")
  val ManifestCompression: OptionDef[String] = define("manifest.compression",
    enumOf("zstd", "deflate", "snappy", "null"), "zstd", "Avro codec of manifest and manifest-list files.")
  val ManifestTargetFileSize: OptionDef[Long] = define("manifest.target-file-size", MemorySizeKind, "8 mb",
    "Size at which a manifest file is rolled over.")
  val ManifestMergeMinCount: OptionDef[Int] = define("manifest.merge-min-count", IntKind, "30",
    "When a snapshot would reference more manifest files than this, they are merged into fewer.")
  val TargetFileSize: OptionDef[Long] = define("target-file-size", MemorySizeKind, "128 mb",
    "Size at which a data file is rolled over.")
  val StatsMode: OptionDef[String] = define("metadata.stats-mode", StringKind, "truncate(16)",
    "Which value statistics data files record: none, counts, full or truncate(N).")
  val PartitionDefaultName: OptionDef[String] = define("partition.default-name", StringKind,
    "__DEFAULT_PARTITION__", "Directory name used for a null or empty partition value.")
  val CommitMaxRetries: OptionDef[Int] = define("commit.max-retries", IntKind, "10",
    "How many times a commit retries after losing a snapshot-id race before it fails.")
  val ScanSnapshotId: OptionDef[Long] = define("scan.snapshot-id", LongKind, null,
    "Read the table as of this snapshot id (time travel).")
  val ScanTimestampMillis: OptionDef[Long] = define("scan.timestamp-millis", LongKind, null,
    "Read the latest snapshot committed at or before this epoch-millisecond timestamp.")

  /** Keys accepted beside the registry: reserved names Spark passes through, and patterns. */
  private val patternKeys: Seq[scala.util.matching.Regex] = Seq(
    """^fields\.[^.]+\.[a-z-]+(\.[a-z-]+)*$""".r)

  def all: Seq[OptionDef[_]] = defs.values.toSeq

  def find(key: String): Option[OptionDef[_]] = defs.get(key)

  /** Extra keys registered by other registries (lookup store, merge tree) so that a table accepts them. */
  def registerExternal(d: OptionDef[_]): Unit = synchronized { if (!defs.contains(d.key)) defs.put(d.key, d) }

  /** Checks keys and values of user-given table options. Unknown keys get the closest valid key as
   *  a suggestion. */
  def validate(options: Map[String, String], table: String): Unit = {
    options.foreach { case (k, v) =>
      defs.get(k) match {
        case Some(d) => d.parseOrFail(v)
        case None if patternKeys.exists(_.pattern.matcher(k).matches()) =>
        case None =>
          val hint = suggest(k).map(s => s"; did you mean '$s'?").getOrElse("")
          throw new BadInputException(s"Unknown option '$k' for table $table$hint")
      }
    }
  }

  def suggest(key: String): Option[String] = {
    val scored = defs.keys.map(k => k -> Levenshtein.distance(key.toLowerCase, k)).toSeq.sortBy(_._2)
    scored.headOption.filter(_._2 <= math.max(3, key.length / 3)).map(_._1)
  }
}

/** Edit distance, for "did you mean" suggestions. */
object Levenshtein {
  def distance(a: String, b: String): Int = {
    val prev = Array.tabulate(b.length + 1)(identity)
    val cur = new Array[Int](b.length + 1)
    for (i <- 1 to a.length) {
      cur(0) = i
      for (j <- 1 to b.length) {
        val cost = if (a.charAt(i - 1) == b.charAt(j - 1)) 0 else 1
        cur(j) = math.min(math.min(cur(j - 1) + 1, prev(j) + 1), prev(j - 1) + cost)
      }
      System.arraycopy(cur, 0, prev, 0, cur.length)
    }
    prev(b.length)
  }
}
