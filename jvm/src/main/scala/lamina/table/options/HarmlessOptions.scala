package lamina.table.options

/** Apache Paimon's option keys that Lamina does not implement and that change nothing Lamina's reads,
 *  writes and compactions produce: a table that stores one of them (Paimon's writers created it) is
 *  read, written and compacted as if it were absent. Each group says why. Keys of Paimon's that are
 *  neither here nor in [[CoreOptions]] are features Lamina refuses ([[UnsupportedFeatures]]); a key
 *  that looks like Paimon's and is in neither list is refused as unknown. `docs/options.md` lists them
 *  (generated). */
object HarmlessOptions {
  final case class Group(why: String, keys: Seq[String], prefixes: Seq[String] = Nil)

  val Groups: Seq[Group] = Seq(
    Group(
      "Settings of expiration and tagging that Lamina does not implement (it expires snapshots and makes " +
        "process-time tags by the options in the table above): keeping more snapshots, partitions, tags and " +
        "changelogs than asked is never wrong for a reader.",
      Seq("snapshot.expire.execution-mode", "snapshot.clean-empty-directories",
        "partition.expiration-batch-size", "partition.timestamp-format.strict", "end-input.check-partition-expire",
        "consumer.mode"),
      Seq("tag.")),
    Group(
      "Tuning of Paimon's writers, compactions, caches and split planning: they change how Paimon works, " +
        "not which rows a table holds.",
      Seq("sort-engine", "sort-spill-threshold", "sort-spill-buffer-size", "spill-compression", "spill-compression.zstd-level",
        "write-buffer-spill.max-disk-size", "write-buffer-for-append", "write-max-writers-to-spill",
        "local-sort.max-num-file-handles", "page-size", "read.batch-size", "write.batch-size", "write.batch-memory",
        "commit.force-compact", "commit.timeout", "commit.min-retry-wait", "commit.max-retry-wait",
        "commit.force-create-snapshot", "commit.user-prefix", "commit.discard-duplicate-files",
        "commit.strict-mode.last-safe-snapshot", "snapshot.ignore-empty-commit",
        "compaction.force-rewrite-all-files", "compaction.force-up-level-0", "compaction.offpeak.start.hour",
        "compaction.offpeak.end.hour", "compaction.offpeak-ratio", "compaction.optimization-interval",
        "compaction.total-size-threshold", "compaction.incremental-size-threshold",
        "compaction.file-num-limit",
        "force-lookup", "lookup-wait", "lookup.hash-load-factor",
        "lookup.cache.bloom.filter.enabled",
        "lookup.cache.bloom.filter.fpp", "lookup.remote-file.enabled", "lookup.remote-file.level-threshold",
        "lookup.merge-buffer-size", "lookup.merge-records-threshold", "local-merge-buffer-size",
        "source.split.target-size", "source.split.open-file-cost",
        "source.split.target-size-with-column-pruning", "scan.max-splits-per-task", "scan.manifest.parallelism",
        "scan.plan-sort-partition", "file-reader-async-threshold", "file-operation.thread-num", "async-file-write",
        "manifest.full-compaction-threshold-size", "bucket-append-ordered", "dynamic-partition-overwrite",
        "overwrite-upgrade", "clustering.columns", "clustering.strategy", "clustering.incremental",
        "clustering.history-partition.limit", "clustering.history-partition.idle-to-full-sort",
        "clustering.incremental.optimize-write", "clustering.incremental.mode"),
      Seq("sort-compaction.")),
    Group(
      "How Paimon lays out, encodes and describes files (and settings it hands to the ORC, Parquet and Avro " +
        "writers): Lamina reads the files and statistics a manifest lists whatever their names, codecs and " +
        "indexes, and writes its own. (Of the file-index.* keys Lamina implements the bloom filter's and the bitmap's, " +
        "in the table above; file indexes of other types, such as bsi, are neither written nor consulted.) (Lamina writes ORC's TIMESTAMP WITH LOCAL TIME ZONE as instants, as Paimon " +
        "does with orc.timestamp-ltz.legacy.type = false.)",
      Seq("data-file.prefix", "changelog-file.prefix", "changelog-file.format", "changelog-file.compression",
        "changelog-file.stats-mode", "file.suffix.include.compression", "file.block-size",
        "parquet.enable.dictionary", "metadata.stats-mode.per.level", "metadata.stats-dense-store",
        "metadata.stats-keep-first-n-columns", "manifest.delete-file-drop-stats"),
      Seq("file-index.", "global-index.", "orc.", "parquet.", "avro.")),
    Group(
      "Settings of a feature that Lamina refuses on its own key (" +
        "deletion vectors, changelog producers, external paths' weight-robin strategy, chain tables, " +
        "blob, vector and variant columns): alone they do nothing.",
      Seq("deletion-vectors.modifiable",
        "delete.force-produce-changelog",
        "data-file.external-paths.weights",
        "chain-table.chain-partition-keys", "scan.fallback-snapshot-branch",
        "scan.fallback-delta-branch", "blob.target-file-size", "blob.split-by-file-size", "blob-descriptor-field",
        "blob-as-descriptor", "blob-external-storage-path", "blob-external-storage-field", "vector.file.format",
        "vector.target-file-size", "variant.shredding.maxSchemaWidth", "variant.shredding.maxSchemaDepth",
        "variant.shredding.minFieldCardinalityRatio", "variant.shredding.maxInferBufferRow",
        "incremental-between-tag-to-snapshot"),
      Seq("format-table.")),
    Group(
      "Streaming, Flink, catalog, metastore and schema-evolution settings that batch reads and writes " +
        "of Lamina do not consult (Lamina reports corrupt or lost files instead of skipping them).",
      Seq("path", "partition", "auto-create", "continuous.discovery-interval", "streaming.read.snapshot.delay",
        "streaming-read-overwrite", "streaming-read-append-overwrite", "scan.bounded.watermark",
        "sink.watermark-time-zone", "sink.process-time-zone", "snapshot.watermark-idle-timeout",
        "partition.end-input-to-done", "partition.mark-done-action.custom.class",
        "partition.mark-done-action.http.url", "partition.mark-done-action.http.params", "partition.sink-strategy",
        "partition.idle-time-to-report-statistic", "commit.callbacks", "commit.callback.#.param", "tag.callbacks",
        "tag.callback.#.param", "visibility-callback.enabled", "visibility-callback.timeout",
        "visibility-callback.check-interval", "query-auth.enabled", "requiredSparkConfsCheck.enabled",
        "write.use-v2-write", "write.merge-schema", "write.merge-schema.explicit-cast",
        "read.stream.maxBytesPerTrigger", "read.stream.minRowsPerTrigger",
        "read.stream.maxTriggerDelayMs", "read.allow.fullScan", "alter-column-null-to-not-null.disabled",
        "disable-explicit-type-casting", "add-column-before-partition", "scan.ignore-corrupt-files",
        "scan.ignore-lost-files", "table-read.sequence-number.enabled", "key-value.sequence_number.enabled"),
      Seq("metastore.", "materialized-table."))
  )

  private val byKey: Map[String, Group] = Groups.flatMap(g => g.keys.map(_ -> g)).toMap

  /** Why `key` is harmless, if it is. */
  def reason(key: String): Option[String] =
    byKey.get(key).orElse(Groups.find(_.prefixes.exists(key.startsWith))).map(_.why)
}
