package lamina.table.options

import lamina.errors.BadInputException
import lamina.format.DataFileFormat
import lamina.table.options.{FileCompression => Compression, ManifestCompression => ManifestCodec,
  ParquetWriterVersion => WriterVersion}
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

  /** An enumerated option, whose default is one of its values. */
  private def define[T](key: String, kind: EnumKind[T], default: T, doc: String): OptionDef[T] =
    define(key, kind, kind.textOf(default), doc)

  val Bucket: OptionDef[Int] = define("bucket", IntKind, "-1",
    "Number of buckets per partition. -1 means bucket-unaware (append tables only); N > 0 hashes " +
      "the bucket key into N fixed buckets.")
  val BucketKey: OptionDef[Seq[String]] = define("bucket-key", ListKind, null,
    "Comma-separated columns whose hash picks a row's bucket. Defaults to the primary key minus the " +
      "partition columns; required for fixed-bucket append tables.")
  val PrimaryKey: OptionDef[Seq[String]] = define("primary-key", ListKind, null,
    "Comma-separated primary-key columns. Only read at CREATE TABLE, where it becomes part of the schema.")
  val FileFormat: OptionDef[DataFileFormat] = define("file.format", enumOf(DataFileFormat.All)(_.name),
    DataFileFormat.Parquet,
    "Format of data files: parquet or orc (avro, which Paimon also writes, is not implemented: such tables are refused).")
  val FileCompression: OptionDef[Compression] = define("file.compression", enumOf(Compression.All)(_.name),
    Compression.Zstd,
    "Compression codec of data files.")
  val FileCompressionZstdLevel: OptionDef[Int] = define("file.compression.zstd-level", intBetween(1, 22), "1",
    "Level of zstd compression of data files (1 is fastest; higher levels write smaller files more slowly).")
  val ParquetWriterVersion: OptionDef[WriterVersion] = define("parquet.writer.version",
    enumOf(WriterVersion.All)(_.name), WriterVersion.V2,
    "Parquet format version of data files: v2 pages encode integers as deltas (sorted keys and sequence " +
      "numbers shrink to a few bits each); v1 for readers that predate v2 encodings.")
  val ManifestCompression: OptionDef[ManifestCodec] = define("manifest.compression",
    enumOf(ManifestCodec.All)(_.name), ManifestCodec.Zstd, "Avro codec of manifest and manifest-list files.")
  val ManifestTargetFileSize: OptionDef[Long] = define("manifest.target-file-size", PositiveMemorySizeKind, "8 mb",
    "Size at which a manifest file is rolled over.")
  val ManifestMergeMinCount: OptionDef[Int] = define("manifest.merge-min-count", intAtLeast(1), "30",
    "When a snapshot would reference more manifest files than this, they are merged into fewer.")
  val TargetFileSize: OptionDef[Long] = define("target-file-size", PositiveMemorySizeKind, "128 mb",
    "Size at which a data file is rolled over.")
  val StatsMode: OptionDef[String] = define("metadata.stats-mode", StringKind, "truncate(16)",
    "Which value statistics data files record: none, counts, full or truncate(N).")
  val PartitionDefaultName: OptionDef[String] = define("partition.default-name", StringKind,
    "__DEFAULT_PARTITION__", "Directory name used for a null or empty partition value.")
  val PartitionLegacyName: OptionDef[Boolean] = define("partition.legacy-name", BooleanKind, "true",
    "How partition directories are named, as in Paimon: true (Paimon's default) names them by the internal " +
      "value's text (a DATE by its epoch day, p=19723; a TIMESTAMP as 2024-01-01T12%3A30); false by the SQL " +
      "text (p=2024-01-01, 2024-01-01 12%3A30%3A00). Other types read the same either way. Tables written " +
      "by Lamina versions before this option existed used false for DATE and TIMESTAMP partitions.")
  val CommitMaxRetries: OptionDef[Int] = define("commit.max-retries", intAtLeast(0), "10",
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

  /** The first segments of Apache Paimon's option keys (`compaction.`, `deletion-vectors.`, ...): a
   *  key under one of them that the registry does not know is an option Lamina does not honour (or a
   *  typo of one), never user metadata. */
  val PaimonPrefixes: Set[String] = Set(
    "bucket", "branch", "changelog", "changelog-producer", "commit", "compaction", "consumer", "cross-partition-upsert",
    "data-file", "deletion-vectors", "dynamic-bucket", "dynamic-partition-overwrite", "fields", "file", "file-index",
    "full-compaction", "incremental-between", "local-merge-buffer-size", "lookup", "manifest", "merge-engine",
    "metadata", "metastore", "num-sorted-run", "orc", "parquet", "partial-update", "partition", "read", "record-level",
    "rowkind", "scan", "sequence", "sink", "snapshot", "sort-engine", "spill-compression", "streaming-read",
    "tag", "target-file-size", "write", "write-buffer-size", "zorder", "lookup-compact", "lookup-wait", "avro",
    "blob", "data-evolution", "row-tracking", "global-index", "source", "visibility-callback", "async-file-write",
    "end-input", "continuous", "log", "index-file-in-data-file-dir", "force-lookup", "ignore-delete", "aggregation")

  /** Checks keys and values of user-given table options. A key the registry knows must have a valid
   *  value. An unknown key is refused, with the closest valid key as a suggestion, when it is close to
   *  a known key or lies under one of [[PaimonPrefixes]]; any other key is the user's own metadata
   *  (`'owner.team' = 'x'`), kept as given, as Paimon and Delta keep it. */
  def validate(options: Map[String, String], table: String): Unit = {
    options.foreach { case (k, v) =>
      defs.get(k) match {
        case Some(d) => d.parseOrFail(v)
        case None if patternKeys.exists(_.pattern.matcher(k).matches()) =>
        case None if isUserKey(k) =>
        case None =>
          val hint = suggest(k).map(s => s"; did you mean '$s'?").getOrElse("")
          throw new BadInputException(s"Unknown option '$k' for table $table$hint")
      }
    }
  }

  /** A key outside Paimon's option space and not a near miss (at most 2 edits) of a known key. */
  def isUserKey(key: String): Boolean = {
    val lower = key.toLowerCase
    val first = lower.split('.').head
    !defs.contains(key) && !PaimonPrefixes.contains(first) &&
      !defs.keys.exists(k => Levenshtein.distance(lower, k) <= 2)
  }

  /** A stored key that is one edit away from a key the registry knows: in a schema file, the mark of
   *  a damaged byte rather than an option. */
  def nearMiss(key: String): Option[String] =
    if (defs.contains(key)) None else defs.keys.find(k => Levenshtein.distance(key, k) == 1)

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
