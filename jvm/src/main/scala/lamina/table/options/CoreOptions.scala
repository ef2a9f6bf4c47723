package lamina.table.options

import scala.collection.mutable.ArrayBuffer

import lamina.errors.BadInputException
import lamina.format.DataFileFormat
import lamina.lookup.{LocalFileType, LookupOptions}
import lamina.lookup.compression.CompressionType
import lamina.table.options.{
  ChangelogProducer => Producer,
  AvroCodec => AvroCodecName,
  FileCompression => Compression,
  IncrementalScanMode => IncrementalMode,
  ManifestCompression => ManifestCodec,
  MergeEngine => Engine,
  ParquetWriterVersion => WriterVersion,
  PartitionExpireStrategy => PartitionStrategy,
  SequenceSortOrder => SeqOrder,
  StartupMode => Startup,
  TagCreationPeriod => Period
}
import OptionKind._
import OptionScope.{PerQuery, Table}

/** The one registry of every option Lamina knows (table, read and write options, with Apache
 *  Paimon's keys): each with its key, type, default, scope and doc, all declared in this object, which
 *  holds every option as soon as it is initialised, in any JVM; nothing adds to it later. An
 *  enumerated option parses into its type ([[MergeEngine]], [[ChangelogProducer]], ...), so that code
 *  decides by the type and never compares text.
 *
 *  Resolution order for a value (first hit wins): the read/write option of the query, the session
 *  conf `spark.lamina.<key>` (both only for [[OptionScope.PerQuery]] options, see [[checkPerQuery]]),
 *  the table's option (stored in its schema), the default here. `docs/options.md` is generated from
 *  this registry (`lamina.tools.OptionsDoc`). */
object CoreOptions {
  private val defs = ArrayBuffer.empty[OptionDef[_]]

  private def define[T](key: String, kind: OptionKind[T], default: String, scope: OptionScope, doc: String): OptionDef[T] = {
    val d = OptionDef(key, kind, Option(default), scope, doc)
    defs += d
    d
  }

  /** The formats a table's data files are written in: `file.format` and those of `file.format.per.level`. */
  def fileFormats(options: Map[String, String]): Seq[DataFileFormat] =
    (FileFormat.getOrDefault(options) +: FileFormatPerLevel.get(options).toSeq.flatMap(_.values.toSeq.sortBy(_.name))).distinct

  /** An enumerated option, whose default is one of its values. */
  private def define[T](key: String, kind: EnumKind[T], default: T, scope: OptionScope, doc: String): OptionDef[T] =
    define(key, kind, kind.textOf(default), scope, doc)

  // The table's layout and data files.

  val Bucket: OptionDef[Int] = define("bucket", IntKind, "-1", Table,
    "Number of buckets per partition. N > 0 hashes the bucket key into N fixed buckets. -1: an append table " +
      "is bucket-unaware; a primary-key table whose key holds every partition column has dynamic buckets, " +
      "which its hash index assigns keys to, opening a bucket when the others hold " +
      "dynamic-bucket.target-row-num keys.")
  val DynamicBucketTargetRowNum: OptionDef[Long] = define("dynamic-bucket.target-row-num", longAtLeast(1),
    "2000000", Table, "Dynamic buckets: the keys a bucket takes before new keys go to another bucket.")
  val DynamicBucketInitialBuckets: OptionDef[Int] = define("dynamic-bucket.initial-buckets", intAtLeast(1), null,
    Table,
    "Dynamic buckets: the most assigners a write uses, so the buckets a partition opens first " +
      "(each assigner opens its own); unset, as many as the write's assigners.")
  val DynamicBucketMaxBuckets: OptionDef[Int] = define("dynamic-bucket.max-buckets", IntKind, "-1", Table,
    "Dynamic buckets: the most buckets per partition (-1: no limit). At the limit a new key goes to the " +
      "assigner's least filled bucket.")
  val CrossPartitionUpsertIndexTtl: OptionDef[Long] = define("cross-partition-upsert.index-ttl", DurationKind, null,
    Table,
    "Cross-partition upsert (a primary key without every partition column, bucket = -1): the key index a " +
      "write builds leaves out the keys of buckets none of whose files was written within this time, so such " +
      "a key written again lands in its new partition beside its old row. Unset: every key is indexed.")
  val CrossPartitionUpsertBootstrapParallelism: OptionDef[Int] = define(
    "cross-partition-upsert.bootstrap-parallelism", intAtLeast(1), "10", Table,
    "Cross-partition upsert: the Spark tasks of the scan that reads the table's live keys when a write starts, " +
      "whole buckets each (Spark's default parallelism where larger; never more tasks than buckets).")
  val PostponeBatchWriteFixedBucket: OptionDef[Boolean] = define("postpone.batch-write-fixed-bucket", BooleanKind,
    "true", Table,
    "Postpone buckets (bucket = -2): batch writes (and Lamina's streaming sink) put rows straight into fixed " +
      "buckets, each partition in its own count; false: into bucket-postpone, unread until a compaction " +
      "assigns them to buckets.")
  val PostponeBatchWriteFixedBucketMaxParallelism: OptionDef[Int] = define(
    "postpone.batch-write-fixed-bucket.max-parallelism", intAtLeast(1), "2048", Table,
    "Postpone buckets: the bucket count of a partition's first write is Spark's default parallelism, at most " +
      "this.")
  val PostponeDefaultBucketNum: OptionDef[Int] = define("postpone.default-bucket-num", intAtLeast(1), null, Table,
    "Postpone buckets: the bucket count a compaction gives a partition whose rows were all written into " +
      "bucket-postpone; not set, Spark's default parallelism (as Paimon's compaction on Spark).")
  val PostponeTargetBucketRows: OptionDef[Long] = define("postpone.target-bucket-rows", longAtLeast(1), null, Table,
    "Postpone buckets (Lamina's own): a compaction gives a partition whose rows were all written into " +
      "bucket-postpone one bucket per this many of its waiting records (rounded up, at most " +
      "postpone.batch-write-fixed-bucket.max-parallelism), instead of postpone.default-bucket-num.")
  val DynamicBucketAssignerParallelism: OptionDef[Int] = define("dynamic-bucket.assigner-parallelism",
    intAtLeast(1), null, PerQuery,
    "Dynamic buckets: how many groups of key hashes a write assigns buckets to, each in one task; unset, " +
      "Spark's default parallelism.")
  val MergeKeyFilterMaxKeys: OptionDef[Int] = define("merge.key-filter.max-keys", intAtLeast(0), "1000000",
    PerQuery,
    "A MERGE into a primary-key table whose ON condition equates key or partition columns with the source " +
      "first collects the source's distinct values of them, up to this many, and then reads only the " +
      "partitions, buckets, files and rows of the target that can hold them; so does a DELETE or UPDATE whose " +
      "condition is key IN (SELECT ...). A source with more values (or estimated to have more rows) reads and " +
      "joins the whole target. 0: never.")
  val MergeKeyLookupBuild: OptionDef[Boolean] = define("merge.key-lookup.build", BooleanKind, "false", PerQuery,
    "With merge.key-lookup.rows-per-key: a run whose files lack their local lookup files on the executor has them " +
      "built there by the MERGE (a read of each whole file), kept for the next MERGEs and lookup compactions on " +
      "that executor (lookup.cache-file-retention, lookup.cache-max-disk-size), instead of being read. Pays off for " +
      "MERGEs repeated on one Spark application; a first MERGE costs more than reading the runs.")
  val MergeKeyLookupRowsPerKey: OptionDef[Int] = define("merge.key-lookup.rows-per-key", intAtLeast(0), "32",
    PerQuery,
    "Where a MERGE (or key IN (SELECT ...)) hands a primary-key table's scan its source's keys and the key is one " +
      "integral column, a sorted run above level 0 of a table without deletion vectors is read by looking each " +
      "key up in the local lookup files that lookup compaction built on the executor, instead of decoding the " +
      "run, when the source's keys inside the run's files number at most one per this many of the run's rows and " +
      "every file holding one has its local file built there. 0: never.")
  val BucketKey: OptionDef[Seq[String]] = define("bucket-key", ListKind, null, Table,
    "Comma-separated columns whose hash picks a row's bucket. Defaults to the primary key minus the " +
      "partition columns; required for fixed-bucket append tables.")
  val PrimaryKey: OptionDef[Seq[String]] = define("primary-key", ListKind, null, Table,
    "Comma-separated primary-key columns. Only read at CREATE TABLE, where it becomes part of the schema.")
  val FileFormat: OptionDef[DataFileFormat] = define("file.format", enumOf(DataFileFormat.All)(_.name),
    DataFileFormat.Parquet, Table,
    "Format of data files: parquet, orc or avro (row-oriented: fast to write, every read decodes whole records).")
  val FileFormatPerLevel: OptionDef[Map[Int, DataFileFormat]] = define("file.format.per.level",
    perLevel("format", "0:avro,5:parquet", DataFileFormat.All)(_.name), null: String, Table,
    "Format of the data files of some levels of a primary-key table (a file of another level is in file.format); " +
      "a file is read in the format its name ends with, whatever the option says now.")
  val DataFileExternalPaths: OptionDef[Seq[String]] = define("data-file.external-paths", ListKind, null, Table,
    "Comma-separated root URIs (each with its scheme: file:///data/t, s3://bucket/t) where new data files, " +
      "changelog files and their file indexes are written instead of the table's directory, with the table's " +
      "layout under each root (<root>/<partition>/bucket-<n>/<file>); used only with a " +
      "data-file.external-paths.strategy other than none. Each file records its full path, so reads never " +
      "need this option. Give each table roots of its own: DROP TABLE deletes them whole, as Paimon does.")
  val DataFileExternalPathsStrategy: OptionDef[ExternalPathStrategy] = define("data-file.external-paths.strategy",
    enumOf(ExternalPathStrategy.All)(_.name), ExternalPathStrategy.NoExternal, Table,
    "How a writer picks the root of each new data file among data-file.external-paths: none (the table's " +
      "directory), round-robin (every root in turn, from a random start per bucket writer), specific-fs (the " +
      "roots of the scheme data-file.external-paths.specific-fs, in turn). Paimon's entropy-inject and " +
      "weight-robin tables are read, and refused for writes.")
  val DataFileExternalPathsSpecificFs: OptionDef[String] = define("data-file.external-paths.specific-fs",
    StringKind, null, Table,
    "With data-file.external-paths.strategy = specific-fs: the scheme (s3, oss, file, ...) of the roots new data " +
      "files go to, compared without case.")
  val FileCompression: OptionDef[Compression] = define("file.compression", enumOf(Compression.All)(_.name),
    Compression.Zstd, PerQuery,
    "Compression codec of data files.")
  val FileCompressionPerLevel: OptionDef[Map[Int, Compression]] = define("file.compression.per.level",
    perLevel("codec", "0:lz4,1:zstd", Compression.All)(_.name), null: String, PerQuery,
    "Compression codec of the data files of some levels of a primary-key table (level 0 holds the files writes " +
      "add, higher levels those compaction writes); a file of another level takes file.compression. A file that " +
      "compaction moves up a level without rewriting it keeps its codec, as in Paimon.")
  val AvroCodec: OptionDef[AvroCodecName] = define("avro.codec", enumOf(AvroCodecName.All)(_.name), null: String, PerQuery,
    "Codec of Avro data files, as Avro names it; unset, file.compression decides (none is Avro's null codec, " +
      "zstd its zstandard codec at file.compression.zstd-level; lz4 and gzip have no Avro codec).")
  val FileCompressionZstdLevel: OptionDef[Int] = define("file.compression.zstd-level", intBetween(1, 22), "1", PerQuery,
    "Level of zstd compression of data files (1 is fastest; higher levels write smaller files more slowly).")
  val ParquetWriterVersion: OptionDef[WriterVersion] = define("parquet.writer.version",
    enumOf(WriterVersion.All)(_.name), WriterVersion.V2, PerQuery,
    "Parquet format version of data files: v2 pages encode integers as deltas (sorted keys and sequence " +
      "numbers shrink to a few bits each); v1 for readers that predate v2 encodings. Unset, a table with " +
      "file-index.bitmap.columns writes v1: Paimon 1.4's reader misreads v2 pages when a bitmap index selects rows.")
  val ManifestCompression: OptionDef[ManifestCodec] = define("manifest.compression",
    enumOf(ManifestCodec.All)(_.name), ManifestCodec.Zstd, PerQuery,
    "Avro codec of manifest and manifest-list files.")
  val ManifestTargetFileSize: OptionDef[Long] = define("manifest.target-file-size", PositiveMemorySizeKind, "8 mb",
    PerQuery, "Size at which a manifest file is rolled over.")
  val ManifestMergeMinCount: OptionDef[Int] = define("manifest.merge-min-count", intAtLeast(1), "30", PerQuery,
    "When a snapshot would reference more manifest files than this, they are merged into fewer.")
  val TargetFileSize: OptionDef[Long] = define("target-file-size", PositiveMemorySizeKind, "128 mb", PerQuery,
    "Size at which a data file is rolled over.")
  val StatsMode: OptionDef[String] = define("metadata.stats-mode", StringKind, "truncate(16)", PerQuery,
    "Which value statistics data files record: none, counts, full or truncate(N).")
  val PartitionDefaultName: OptionDef[String] = define("partition.default-name", StringKind,
    "__DEFAULT_PARTITION__", Table, "Directory name used for a null or empty partition value.")
  val PartitionLegacyName: OptionDef[Boolean] = define("partition.legacy-name", BooleanKind, "true", Table,
    "How partition directories are named, as in Paimon: true (Paimon's default) names them by the internal " +
      "value's text (a DATE by its epoch day, p=19723; a TIMESTAMP as 2024-01-01T12%3A30); false by the SQL " +
      "text (p=2024-01-01, 2024-01-01 12%3A30%3A00). Other types read the same either way. Tables written " +
      "by Lamina versions before this option existed used false for DATE and TIMESTAMP partitions.")

  // File indexes (Paimon's file-index format, see docs/format/file-index.md). Per-column sizing
  // (`file-index.bloom-filter.<column>.fpp`, `.items`, `file-index.bitmap.<column>.version`,
  // `.index-block-size`) is a pattern accepted by [[validate]];
  // `FileIndexOptions.spec` checks it against the schema.

  val FileIndexBloomFilterColumns: OptionDef[Seq[String]] = define("file-index.bloom-filter.columns", ListKind, null,
    Table,
    "Comma-separated columns each data file written gets a bloom filter of (its index type bloom-filter), sized " +
      "by file-index.bloom-filter.<column>.items (default 1000000) and .fpp (false-positive probability, default " +
      "0.1). Reads skip a file whose filter proves that no row holds the value of an = or IN condition. Types: " +
      "tinyint, smallint, int, bigint, float, double, date, timestamp, string and binary.")
  val FileIndexBitmapColumns: OptionDef[Seq[String]] = define("file-index.bitmap.columns", ListKind, null, Table,
    "Comma-separated columns each data file written gets a bitmap index of (its index type bitmap): for each " +
      "distinct value, and NULL, the rows holding it. Format version by file-index.bitmap.<column>.version (2, " +
      "the default, or 1), dictionary blocks of version 2 by .index-block-size (default 16 kb). Reads skip a file " +
      "that holds no row for an =, IN or IS NULL condition, or only NULLs for IS NOT NULL, or only the value of a " +
      "<> condition. Types: boolean, tinyint, smallint, int, bigint, float, double, date, timestamp and string.")
  val FileIndexInManifestThreshold: OptionDef[Long] = define("file-index.in-manifest-threshold", MemorySizeKind,
    "500 b", Table,
    "A data file's index up to this size is kept in its manifest entry; a larger one is written beside the " +
      "file as <file>.index and listed in the entry's extra files.")
  val FileIndexReadEnabled: OptionDef[Boolean] = define("file-index.read.enabled", BooleanKind, "true", PerQuery,
    "Whether reads consult file indexes to skip data files (on a primary-key table only where no merge reads " +
      "the file: with deletion vectors, or for conditions on key columns).")

  // Commits and reads.

  val CommitMaxRetries: OptionDef[Int] = define("commit.max-retries", intAtLeast(0), "10", PerQuery,
    "How many times a commit retries after losing a snapshot-id race before it fails.")
  val ScanSnapshotId: OptionDef[Long] = define("scan.snapshot-id", LongKind, null, PerQuery,
    "Read the table as of this snapshot id (time travel).")
  val Branch: OptionDef[String] = define("branch", StringKind, "main", PerQuery,
    "The branch a read or write goes to (as naming the table `t$branch_<name>` does); main is the table itself.")
  val ScanTimestampMillis: OptionDef[Long] = define("scan.timestamp-millis", LongKind, null, PerQuery,
    "Read the latest snapshot committed at or before this epoch-millisecond timestamp.")

  // Incremental and streaming reads.

  val IncrementalBetween: OptionDef[String] = define("incremental-between", StringKind, null, PerQuery,
    "'start,end': read the changes of the snapshots after start up to end (snapshot ids or tag names) instead of " +
      "a snapshot. A table read returns the inserted and updated rows (as Paimon's batch reads, deletes and " +
      "update-befores are dropped); table$audit_log returns every change with its rowkind.")
  val IncrementalBetweenTimestamp: OptionDef[String] = define("incremental-between-timestamp", StringKind, null,
    PerQuery,
    "'start,end' epoch milliseconds: incremental-between of the latest snapshots committed at or before " +
      "each of them.")
  val IncrementalBetweenScanMode: OptionDef[IncrementalMode] = define("incremental-between-scan-mode",
    enumOf(IncrementalMode.All)(_.name), IncrementalMode.Auto, PerQuery,
    "What an incremental read reads: delta (the files each APPEND snapshot added, as written), changelog (the " +
      "changelog files; a table with changelog-producer input), diff (the difference between the start and the " +
      "end snapshot) or auto (changelog where the table has a changelog producer, delta otherwise).")
  val ScanMode: OptionDef[Startup] = define("scan.mode", enumOf(Startup.All)(_.name), Startup.Default, PerQuery,
    "Where a streaming read starts: latest-full (default; the latest snapshot whole, then each later snapshot's " +
      "changes), latest (only later changes), from-snapshot (the changes from scan.snapshot-id on), " +
      "from-snapshot-full (that snapshot whole, then later changes), from-timestamp (the changes of snapshots " +
      "committed after scan.timestamp-millis). A batch read reads the snapshot these name.")
  val StreamMaxFilesPerTrigger: OptionDef[Int] = define("read.stream.maxFilesPerTrigger", intAtLeast(1), null, PerQuery,
    "The most data or changelog files one micro-batch of a streaming read takes (at least one split).")
  val StreamMaxRowsPerTrigger: OptionDef[Long] = define("read.stream.maxRowsPerTrigger", LongKind, null, PerQuery,
    "The most rows (by file row counts) one micro-batch of a streaming read takes (at least one split).")

  val ConsumerId: OptionDef[String] = define("consumer-id", StringKind, null, PerQuery,
    "A streaming read's consumer: its progress is kept in consumer/consumer-<id> ({\"nextSnapshot\":N}, as in " +
      "Paimon), a new stream of that consumer starts there, and snapshot expiration keeps every snapshot it still " +
      "needs. The query's checkpoint, where it has one, comes first.")
  val ConsumerIgnoreProgress: OptionDef[Boolean] = define("consumer.ignore-progress", BooleanKind, "false", PerQuery,
    "Whether a new stream of consumer-id starts where scan.mode says rather than at the consumer's progress.")
  val RecordLevelExpireTime: OptionDef[Long] = define("record-level.expire-time", DurationKind, null, Table,
    "Primary-key tables: how long a record lives, counted from its record-level.time-field, which must be set too. " +
      "As in Paimon, expired records are dropped when compaction rewrites their files (a full compaction also " +
      "rewrites top-level files whose oldest time has expired), not on read: no guarantee that they go on time. " +
      "Append tables ignore it, as Paimon's.")
  val RecordLevelTimeField: OptionDef[String] = define("record-level.time-field", StringKind, null, Table,
    "The column record-level.expire-time counts from: INT (epoch seconds), BIGINT (epoch seconds, or milliseconds " +
      "from 1000000000000 on), TIMESTAMP or TIMESTAMP_LTZ.")
  val ConsumerExpirationTime: OptionDef[Long] = define("consumer.expiration-time", DurationKind, null, Table,
    "How long a consumer that stopped recording progress keeps snapshots from expiring; without it, for ever.")
  val ConsumerChangelogOnly: OptionDef[Boolean] = define("consumer.changelog-only", BooleanKind, "false", Table,
    "Whether consumers keep only changelogs from expiring, not snapshots; counts only when changelogs are kept " +
      "longer than snapshots (see changelog.num-retained.min), as in Paimon.")

  // Changelog retention: a changelog expires with its snapshot unless these keep it longer (Paimon's
  // decoupled changelog, kept in the table's changelog/ directory and expired after each commit and by
  // CALL sys.expire_changelogs).

  val ChangelogNumRetainedMin: OptionDef[Int] = define("changelog.num-retained.min", intAtLeast(1), null, Table,
    "The fewest changelogs kept. Defaults to snapshot.num-retained.min. When any changelog.* retention keeps more " +
      "or longer than its snapshot.* counterpart, snapshot expiration keeps an expiring snapshot's changelog " +
      "(changelog/changelog-<id> and its changelog files) for streaming and incremental reads, until changelog " +
      "expiration removes it; only with a changelog-producer (Lamina refuses it on a table without one).")
  val ChangelogNumRetainedMax: OptionDef[Int] = define("changelog.num-retained.max", intAtLeast(1), null, Table,
    "The most changelogs kept, counted back from the latest snapshot. Defaults to snapshot.num-retained.max; see " +
      "changelog.num-retained.min.")
  val ChangelogTimeRetained: OptionDef[Long] = define("changelog.time-retained", DurationKind, null, Table,
    "How long a changelog is kept after its commit. Defaults to snapshot.time-retained; see " +
      "changelog.num-retained.min.")
  val ChangelogRowDeduplicate: OptionDef[Boolean] = define("changelog-producer.row-deduplicate", BooleanKind, "false",
    Table,
    "Whether an update that leaves a row unchanged produces no -U/+U changelog records. As in Paimon it " +
      "applies to the lookup producer (full-compaction always drops such pairs); the input producer writes the " +
      "records as given.")
  val ChangelogRowDeduplicateIgnoreFields: OptionDef[Seq[String]] = define(
    "changelog-producer.row-deduplicate-ignore-fields", ListKind, null, Table,
    "Comma-separated columns that changelog-producer.row-deduplicate (and the full-compaction producer) leave " +
      "out when comparing a row before and after an update.")
  val FullCompactionDeltaCommits: OptionDef[Int] = define("full-compaction.delta-commits", intAtLeast(1), null, Table,
    "With changelog-producer full-compaction: a batch write compacts the buckets it wrote fully after it commits " +
      "(whatever the value), a streaming write after every this many micro-batches; unset, only CALL sys.compact " +
      "with full compaction produces the changelog (as Paimon's Spark writers). Refused with the lookup producer.")

  // Snapshot expiration: after each commit (unless `write-only`) and by CALL sys.expire_snapshots.

  val SnapshotNumRetainedMin: OptionDef[Int] = define("snapshot.num-retained.min", intAtLeast(1), "10", Table,
    "The fewest snapshots expiration keeps, however old they are (as in Paimon).")
  val SnapshotNumRetainedMax: OptionDef[Int] = define("snapshot.num-retained.max", intAtLeast(1),
    Int.MaxValue.toString, Table,
    "The most snapshots expiration keeps, however young they are (as in Paimon: no limit).")
  val SnapshotTimeRetained: OptionDef[Long] = define("snapshot.time-retained", DurationKind, "7 d", Table,
    "How long a snapshot stays readable after the next one was committed; older ones expire (beyond " +
      "snapshot.num-retained.min) with the files only they use. 7 days, not Paimon's 1 h: with 1 h a query or " +
      "job running longer than an hour, or VERSION AS OF yesterday, fails on missing files, where a Delta " +
      "Lake user is used to 7 days (its deletedFileRetentionDuration; Iceberg keeps 5 days). Set it lower for " +
      "tables committed to very often, or keep snapshots longer with tags.")
  val SnapshotExpireLimit: OptionDef[Int] = define("snapshot.expire.limit", intAtLeast(1), "50", Table,
    "The most snapshots one expiration removes (as in Paimon), so that a commit's clean-up stays short; " +
      "the next commit continues.")

  val PartitionMarkDoneAction: OptionDef[Seq[String]] = define("partition.mark-done-action", ListKind,
    "success-file", Table,
    "What CALL sys.mark_partition_done does to each partition: success-file writes a _SUCCESS file " +
      "({\"creationTime\":ms,\"modificationTime\":ms}) in the partition's directory, as Paimon does. Paimon's " +
      "other actions (done-partition, mark-event, http-report, custom) are refused by that procedure.")

  // Partition expiration: after commits (unless `write-only`) and by CALL sys.expire_partitions.

  val PartitionExpirationTime: OptionDef[Long] = define("partition.expiration-time", DurationKind, null, Table,
    "How long a partition lives: after a commit, partitions older than this are dropped (an OVERWRITE snapshot " +
      "that removes their files), dated as partition.expiration-strategy says. No expiration when unset.")
  val PartitionExpirationCheckInterval: OptionDef[Long] = define("partition.expiration-check-interval", DurationKind,
    "1 h", Table,
    "How often commits of one process look for expired partitions (the first commit of a process always looks; " +
      "Paimon's writers wait a random part of the interval first). 0 looks at every commit.")
  val PartitionExpirationStrategy: OptionDef[PartitionStrategy] = define("partition.expiration-strategy",
    enumOf(PartitionStrategy.All)(_.name), PartitionStrategy.ValuesTime, Table,
    "How a partition is dated: values-time by the time its values spell (see partition.timestamp-pattern), " +
      "update-time by the creation time of its newest data file.")
  val PartitionExpirationMaxNum: OptionDef[Int] = define("partition.expiration-max-num", intAtLeast(1), "100", Table,
    "The most partitions one expiration drops (the oldest first).")
  val PartitionTimestampFormatter: OptionDef[String] = define("partition.timestamp-formatter", StringKind, null, Table,
    "Java DateTimeFormatter pattern that reads a partition's time from its text (see partition.timestamp-pattern); " +
      "by default 'yyyy-MM-dd HH:mm:ss' or 'yyyy-MM-dd'.")
  val PartitionTimestampPattern: OptionDef[String] = define("partition.timestamp-pattern", StringKind, null, Table,
    "How a partition's time is spelled from its values: '$dt', '$year-$month-$day $hour:00:00', ...; by default " +
      "the first partition column's value.")

  // Automatic tags, made after commits as in Paimon.

  val TagAutomaticCreation: OptionDef[TagCreationMode] = define("tag.automatic-creation",
    enumOf(TagCreationMode.All)(_.name), TagCreationMode.None, Table,
    "none, or process-time: after a commit, tag the latest snapshot once a tag.creation-period (plus " +
      "tag.creation-delay) has passed since the last automatic tag, named after the period before the commit's " +
      "time (daily: 2024-05-01, hourly: 2024-05-01 13). Paimon's watermark and batch modes are not implemented.")
  val TagCreationPeriod: OptionDef[Period] = define("tag.creation-period",
    enumOf(Period.All)(_.name), Period.Daily, Table,
    "The period of automatic tags: daily, hourly or two-hours.")
  val TagCreationDelay: OptionDef[Long] = define("tag.creation-delay", DurationKind, "0 ms", Table,
    "How long after a period ends its automatic tag is made, for late commits.")
  val TagNumRetainedMax: OptionDef[Int] = define("tag.num-retained-max", intAtLeast(1), null, Table,
    "The most automatic tags kept; the oldest go first, with the files only they kept. No limit by default.")
  val TagDefaultTimeRetained: OptionDef[Long] = define("tag.default-time-retained", DurationKind, null, Table,
    "How long an automatic tag is kept (for ever by default).")

  // Primary-key tables: merge engines, write buffer, compaction. Per-field options
  // (`fields.<f>.aggregate-function`, `fields.<f>.sequence-group`, ...) are patterns accepted by
  // [[validate]]; `MergeFunctions.create` checks them against the schema.

  /** Read through [[MergeEngine.of]], which names the table in its error. */
  val MergeEngine: OptionDef[Engine] = define("merge-engine", enumOf(Engine.All)(_.name), Engine.Default, Table,
    "How records of one primary key merge: deduplicate keeps the latest, partial-update overwrites " +
      "with the non-null fields of later records, aggregation applies per-field aggregate functions, " +
      "first-row keeps the earliest.")
  val SequenceField: OptionDef[Seq[String]] = define("sequence.field", ListKind, null, Table,
    "Comma-separated columns that order the records of one key: the larger value is the later " +
      "record (see sequence.field.sort-order); NULL orders first; ties fall back to write order.")
  val SequenceFieldSortOrder: OptionDef[SeqOrder] = define("sequence.field.sort-order",
    enumOf(SeqOrder.All)(_.name), SeqOrder.Ascending, Table,
    "The order of sequence.field: ascending makes the record with the largest value the later one, descending " +
      "the one with the smallest. Either way a NULL sequence value orders first and equal values fall back to " +
      "write order. Fixed once the table exists.")
  val WriteBufferSize: OptionDef[Long] = define("write-buffer-size", PositiveMemorySizeKind, "256 mb", PerQuery,
    "Accepted for Paimon compatibility. Lamina sorts written rows with Spark's external sorter, which is " +
      "bounded by Spark's execution memory and spills to local disk, so one write makes one sorted run per bucket and task.")
  val WriteBufferSpillable: OptionDef[Boolean] = define("write-buffer-spillable", BooleanKind, "true", PerQuery,
    "Accepted for Paimon compatibility. Lamina's write sort always spills (see write-buffer-size).")
  val WriteOnly: OptionDef[Boolean] = define("write-only", BooleanKind, "false", PerQuery,
    "If true, writes never compact; compaction is left to CALL sys.compact or the compaction job. Otherwise the " +
      "buckets a write touched are compacted (universal compaction) in a COMPACT snapshot right after it.")
  val CompactionMaxSizeAmplificationPercent: OptionDef[Int] = define(
    "compaction.max-size-amplification-percent", intAtLeast(0), "200", PerQuery,
    "Full compaction is picked when the sorted runs other than the oldest add up to more than this " +
      "percentage of the oldest run's size.")
  val CompactionSizeRatio: OptionDef[Int] = define("compaction.size-ratio", intAtLeast(0), "1", PerQuery,
    "Percentage of flexibility when comparing sorted-run sizes: a run joins the compaction when its " +
      "size is at most the candidates' total size times (100 + ratio) percent.")
  val CompactionMinFileNum: OptionDef[Int] = define("compaction.min.file-num", intAtLeast(1), "5", PerQuery,
    "Append tables: how many small files (see compaction.small-file-ratio) a bucket must hold before a minor " +
      "compaction (CALL sys.compact with compact_strategy 'minor') rewrites them into files of about target-file-size.")
  val CompactionDeleteRatioThreshold: OptionDef[Double] = define("compaction.delete-ratio-threshold",
    described("Double")(_.toDoubleOption.filter(v => v >= 0 && v <= 1)), "0.2", PerQuery,
    "Append tables with deletion vectors: a file whose vector deletes more than this share of its rows, in [0, 1], " +
      "is rewritten without them by a minor compaction.")
  val NumSortedRunCompactionTrigger: OptionDef[Int] = define("num-sorted-run.compaction-trigger", intAtLeast(1), "5",
    PerQuery, "Number of sorted runs (each level-0 file counts as one) that triggers compaction.")

  /** Read through [[numSortedRunStopTrigger]], which gives its default. */
  val CompactionSmallFileRatio: OptionDef[Double] = define("compaction.small-file-ratio", DoubleKind, "0.7", PerQuery,
    "Append tables: files smaller than target-file-size times this ratio are small, and rewritten together by a " +
      "minor compaction; larger ones only when their deletion vectors delete many rows (a full compaction " +
      "rewrites every bucket of more than one file).")
  val ZOrderVarLengthContribution: OptionDef[Int] = define("zorder.var-length-contribution", intAtLeast(1), "8",
    PerQuery,
    "Sort compaction by zorder: how many leading bytes of a CHAR, VARCHAR, BINARY or VARBINARY column take part " +
      "in the Z-value (other columns take 8).")
  val NumSortedRunStopTrigger: OptionDef[Int] = define("num-sorted-run.stop-trigger", intAtLeast(1), null, PerQuery,
    "Number of sorted runs above which Paimon's writers pause until compaction catches up. Lamina " +
      "compacts the buckets a write touched within that write (unless write-only) and does not pause " +
      "writes; the option is kept for tables shared with Paimon. Defaults to num-sorted-run.compaction-trigger + 3.")

  /** Read through [[numLevels]], which gives its default. */
  val NumLevels: OptionDef[Int] = define("num-levels", intAtLeast(2), null, Table,
    "Number of levels of the merge tree. Defaults to num-sorted-run.compaction-trigger + 1.")
  val IgnoreDelete: OptionDef[Boolean] = define("ignore-delete", BooleanKind, "false", Table,
    "Whether delete and update-before records are ignored: dropped on write and skipped when merging.")
  val IgnoreUpdateBefore: OptionDef[Boolean] = define("ignore-update-before", BooleanKind, "false", Table,
    "Whether update-before (-U) records are dropped on write (from a rowkind.field column), before merging and " +
      "before the input changelog: an update then arrives as its +U record alone, which merge engines that " +
      "cannot retract accept. Changelogs that compaction produces still hold -U records. Cannot be set back to " +
      "false once true.")
  val PartialUpdateRemoveRecordOnDelete: OptionDef[Boolean] = define(
    "partial-update.remove-record-on-delete", BooleanKind, "false", Table,
    "For merge-engine partial-update: whether a delete record removes the whole row; later records " +
      "of the key start from an empty row.")
  val AggregationRemoveRecordOnDelete: OptionDef[Boolean] = define(
    "aggregation.remove-record-on-delete", BooleanKind, "false", Table,
    "For merge-engine aggregation: whether a delete record removes the whole row instead of being " +
      "retracted column by column; later records of the key start from an empty row.")
  val DefaultAggregateFunction: OptionDef[String] = define("fields.default-aggregate-function", StringKind, null, Table,
    "For merge-engine aggregation: the aggregate function of non-key columns without " +
      "fields.<f>.aggregate-function. Defaults to last_non_null_value.")
  val RowKindField: OptionDef[String] = define("rowkind.field", StringKind, null, Table,
    "A STRING column of a primary-key table whose value gives the kind of each row an INSERT or DataFrame write " +
      "writes: '+I' insert, '-U' update-before, '+U' update-after, '-D' delete (Paimon's short strings); a change " +
      "stream applies by appending it. The column is stored like any other. Row-level DML writes its own kinds.")
  val ChangelogProducer: OptionDef[Producer] = define("changelog-producer", enumOf(Producer.All)(_.name),
    Producer.None, Table,
    "How a primary-key table produces its changelog for streaming and incremental reads: none (its snapshots' " +
      "deltas are its history); input (each write also writes its records, with their row kinds, to changelog " +
      "files listed in the snapshot's changelog manifest list); lookup (each write's lookup compaction writes " +
      "every changed key's whole row before and after, by each merge engine's rules, with or without deletion " +
      "vectors); full-compaction (a full compaction writes the changes since the previous one; see " +
      "full-compaction.delta-commits).")

  // Deletion vectors and lookup compaction.

  val DeletionVectorsEnabled: OptionDef[Boolean] = define("deletion-vectors.enabled", BooleanKind, "false", Table,
    "Primary-key tables: writes are compacted by lookup compaction, which marks the older rows of each written key " +
      "in deletion vectors (Paimon's index files) instead of merging on read; reads skip level 0 and read every " +
      "other file on its own with its vector, with every filter pushed down. Allowed with merge engines deduplicate, " +
      "partial-update and aggregation (first-row has no deletes to record). Append tables: accepted, and their " +
      "vectors (from Paimon's writers) applied. Set at CREATE TABLE, or by ALTER TABLE on a table without data files.")
  val DeletionVectorsBitmap64: OptionDef[Boolean] = define("deletion-vectors.bitmap64", BooleanKind, "false", Table,
    "Whether new deletion vectors use Paimon's 64-bit bitmap (Iceberg's layout) instead of the 32-bit roaring bitmap.")
  val DeletionVectorIndexFileTargetSize: OptionDef[Long] = define("deletion-vector.index-file.target-size",
    MemorySizeKind, "2 mb", PerQuery,
    "Bucket-unaware append tables: size past which a deletion-vector index file is rolled over (vectors fill a " +
      "file in order until it is larger than this, so a vector is never split; 0: one vector a file). Other " +
      "tables keep one index file per bucket, as Paimon's writers do.")
  val DeletionVectorsMergeOnRead: OptionDef[Boolean] = define("deletion-vectors.merge-on-read", BooleanKind, "false",
    PerQuery,
    "With deletion vectors: whether reads also merge level-0 files that no compaction has pushed up yet " +
      "(after write-only or gentle writes), at the cost of merging on read.")
  val LookupCompact: OptionDef[LookupCompactMode] = define("lookup-compact", enumOf(LookupCompactMode.All)(_.name),
    LookupCompactMode.Radical, PerQuery,
    "Lookup compaction after a write to a table with deletion vectors: radical pushes every level-0 file up, so " +
      "the written rows are visible when the write returns; gentle picks runs as universal compaction does and " +
      "pushes level 0 up only once lookup-compact.max-interval level-0 files wait in a bucket.")
  val LookupCompactMaxInterval: OptionDef[Int] = define("lookup-compact.max-interval", intAtLeast(1), null, PerQuery,
    "In gentle mode, the number of level-0 files of a bucket that forces a lookup compaction. Defaults to twice " +
      "num-sorted-run.compaction-trigger (at least the trigger).")
  val LookupCacheMaxDiskSize: OptionDef[Long] = define("lookup.cache-max-disk-size", MemorySizeKind, "16 gb", PerQuery,
    "Local disk that an executor's lookup files (built from data files by lookup compaction, in Spark's local " +
      "directories) may take; beyond it the least recently used files are removed once no task uses them. " +
      "Paimon's default is unlimited; a bounded default keeps an executor's disk safe.")
  val LookupCacheFileRetention: OptionDef[Long] = define("lookup.cache-file-retention", DurationKind, "1 h", PerQuery,
    "How long an executor keeps a lookup file that no task used, for the next compaction that looks into the same " +
      "data file.")

  // The local lookup store and its cache, read into the lookup library's LookupOptions by
  // [[lookupStore]]. They keep the lookup store's own type names, which their errors give
  // ("expected MemorySize").

  val CachePageSize: OptionDef[Int] = define("cache-page-size",
    described("MemorySize")(s =>
      MemorySizeKind.parse(s).toOption.filter(v => v >= 1 && v <= LookupOptions.MaxCachePageSize)
        .map(_.toInt)), "64 kb", PerQuery,
    "Target size of a data block of a sort lookup file and the page size of a hash lookup file; " +
      "the unit of reading and caching.")
  val LookupBloomFilterEnabled: OptionDef[Boolean] = define("lookup.bloom-filter.enabled", lookupBoolean, "true", PerQuery,
    "Whether a sort lookup file carries a bloom filter over its keys, so most misses read no data block.")
  val LookupBloomFilterFpp: OptionDef[Double] = define("lookup.bloom-filter.fpp",
    described("Double")(_.toDoubleOption.filter(v => v > 0 && v < 1)), "0.05", PerQuery,
    "Target false positive probability of the bloom filter, in (0, 1).")
  val LookupLocalFileType: OptionDef[LocalFileType] = define("lookup.local-file-type",
    lookupEnum(LocalFileType.values)(_.name), LocalFileType.Sort, PerQuery,
    "Format of local lookup files: 'sort' (sorted blocks, index, bloom filter; keeps key order) or " +
      "'hash' (write-once open-addressing hash file).")
  val LookupCacheMaxMemorySize: OptionDef[Long] = define("lookup.cache-max-memory-size",
    described("MemorySize")(MemorySizeKind.parse(_).toOption), "256 mb", PerQuery,
    "Bytes of decoded blocks and pages the lookup cache may hold, index and data pools together; " +
      "arrays of evicted pages kept for reuse come on top, up to an eighth of this size (16 MiB at most), and so " +
      "does a sort lookup file's index block or bloom filter larger than its pool, which the file's reader keeps " +
      "while open rather than read it again on every lookup.")
  val LookupCacheHighPriorityPoolRatio: OptionDef[Double] = define("lookup.cache.high-priority-pool-ratio",
    described("Double")(_.toDoubleOption.filter(v => v >= 0 && v < 1)), "0.25", PerQuery,
    "Share of the cache reserved for index blocks and bloom filters, in [0, 1); 0 means one pool shared by all. " +
      "An index block or bloom filter larger than this pool is kept by its reader, beyond the cache's size.")
  val LookupCacheSpillCompression: OptionDef[CompressionType] = define("lookup.cache-spill-compression",
    lookupEnum(CompressionType.values)(_.name), CompressionType.Zstd, PerQuery,
    "Compression of blocks of local lookup files; a block stays uncompressed unless compression saves 1/8. " +
      "After four data blocks in a row that it did not, a writer tries only every sixteenth block until one does.")
  val LookupBackgroundCompression: OptionDef[Boolean] = define("lookup.background-compression", lookupBoolean, "true",
    PerQuery,
    "Whether a sort lookup file's writer compresses and writes full data blocks on a second thread while " +
      "it fills the next one (only when blocks are compressed and at least 16 kb; the file's bytes are the same either way).")

  private def lookupBoolean: OptionKind[Boolean] = described("Boolean")(BooleanKind.parse(_).toOption)

  private def lookupEnum[T](values: Seq[T])(text: T => String): EnumKind[T] = {
    val name = values.map(text).mkString("Enum (", ", ", ")")
    new EnumKind(values, text, name, s"expected $name")
  }

  /** Every option, in the order declared above. */
  val all: Seq[OptionDef[_]] = defs.toSeq
  private val byKey: Map[String, OptionDef[_]] = all.map(d => d.key -> d).toMap
  private val keys: Seq[String] = all.map(_.key)

  def find(key: String): Option[OptionDef[_]] = byKey.get(key)

  private val byLowerKey: Map[String, String] = keys.map(k => k.toLowerCase(java.util.Locale.ROOT) -> k).toMap

  /** The registry's spelling of `key` when they differ only in case (`read.stream.maxFilesPerTrigger`). */
  def canonicalKey(key: String): String = byLowerKey.getOrElse(key.toLowerCase(java.util.Locale.ROOT), key)

  /** The lookup store's options of a table with these options (and a query's, on top). */
  def lookupStore(options: Map[String, String]): LookupOptions = LookupOptions(
    cachePageSize = CachePageSize.getOrDefault(options),
    bloomFilterEnabled = LookupBloomFilterEnabled.getOrDefault(options),
    bloomFilterFpp = LookupBloomFilterFpp.getOrDefault(options),
    localFileType = LookupLocalFileType.getOrDefault(options),
    cacheMaxMemorySize = LookupCacheMaxMemorySize.getOrDefault(options),
    highPriorityPoolRatio = LookupCacheHighPriorityPoolRatio.getOrDefault(options),
    compression = LookupCacheSpillCompression.getOrDefault(options),
    backgroundCompression = LookupBackgroundCompression.getOrDefault(options))

  def numSortedRunStopTrigger(options: Map[String, String]): Int =
    NumSortedRunStopTrigger.get(options).getOrElse(NumSortedRunCompactionTrigger.getOrDefault(options) + 3)

  def lookupCompactMaxInterval(options: Map[String, String]): Int = {
    val trigger = NumSortedRunCompactionTrigger.getOrDefault(options)
    math.max(trigger, LookupCompactMaxInterval.get(options).getOrElse(trigger * 2))
  }

  def numLevels(options: Map[String, String]): Int =
    NumLevels.get(options).getOrElse(NumSortedRunCompactionTrigger.getOrDefault(options) + 1)

  /** Keys accepted beside the registry: reserved names Spark passes through, and patterns. */
  private val patternKeys: Seq[scala.util.matching.Regex] = Seq(
    """^fields\.[^.]+\.[a-z-]+(\.[a-z-]+)*$""".r, FileIndexOptions.ColumnKey)

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
      byKey.get(k) match {
        case Some(d) => d.parseOrFail(v, table)
        case None if patternKeys.exists(_.pattern.matcher(k).matches()) =>
        case None if isUserKey(k) =>
        case None => throw new BadInputException(s"Unknown option '$k' for table $table${didYouMean(k)}")
      }
    }
  }

  /** Checks an option that a session or one read or write sets for `table` (`where` names the setting,
   *  for the message): only an [[OptionScope.PerQuery]] key may be set there, with a valid value; a
   *  key of the table's definition is refused, pointing to ALTER TABLE; an unknown key is refused with
   *  the closest valid key. */
  def checkPerQuery(table: String, key: String, value: String, where: String): Unit =
    byKey.get(key) match {
      case Some(d) if d.scope == PerQuery => d.parseOrFail(value)
      case Some(_) =>
        throw new BadInputException(s"Option '$key' of table $table cannot be set by $where: it is part of the " +
          s"table's definition; change it with ALTER TABLE $table SET TBLPROPERTIES ('$key' = '...')")
      case None => throw new BadInputException(s"Unknown option '$key' set by $where for table $table${didYouMean(key)}")
    }

  private def didYouMean(key: String): String = suggest(key).map(s => s"; did you mean '$s'?").getOrElse("")

  /** A key outside Paimon's option space and not a near miss (at most 2 edits) of a known key. */
  def isUserKey(key: String): Boolean = {
    val lower = key.toLowerCase
    val first = lower.split('.').head
    !byKey.contains(key) && !PaimonPrefixes.contains(first) &&
    !keys.exists(k => Levenshtein.distance(lower, k) <= 2)
  }

  /** A stored key that is one edit away from a key the registry knows: in a schema file, the mark of
   *  a damaged byte rather than an option. */
  def nearMiss(key: String): Option[String] =
    if (byKey.contains(key)) None else keys.find(k => Levenshtein.distance(key, k) == 1)

  def suggest(key: String): Option[String] = {
    val scored = keys.map(k => k -> Levenshtein.distance(key.toLowerCase, k)).sortBy(_._2)
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
