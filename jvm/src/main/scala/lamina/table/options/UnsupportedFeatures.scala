package lamina.table.options

import lamina.errors.BadInputException

/** What a statement does to a table, as far as the features of its options are concerned. */
sealed trait TableOperation { def describe: String }
object TableOperation {
  case object Read extends TableOperation { val describe = "reading it" }
  case object Write extends TableOperation { val describe = "writing it (INSERT, DELETE, UPDATE, MERGE, TRUNCATE)" }
  case object Compact extends TableOperation { val describe = "compacting it" }
  val All: Set[TableOperation] = Set(Read, Write, Compact)
}

/** Features of Apache Paimon's tables that Lamina does not implement, recognised by the options a
 *  table stores (tables that Paimon's own writers created). Each names the operations it would make
 *  wrong. Such an operation is refused, naming the feature and the option,
 *  before anything is read or written. */
object UnsupportedFeatures {
  import TableOperation._

  /** `lacking` says what of the feature Lamina lacks, in the refusal's words. */
  final case class Feature(name: String, key: String, blocks: Set[TableOperation],
      active: (Map[String, String], Boolean) => Boolean, lacking: String = "which Lamina does not implement")

  private def is(key: String, value: String)(o: Map[String, String]): Boolean =
    o.get(key).exists(_.trim.equalsIgnoreCase(value))
  private def set(key: String)(o: Map[String, String]): Boolean = o.get(key).exists(_.trim.nonEmpty)
  private def when(name: String, key: String, blocks: Set[TableOperation])(active: Map[String, String] => Boolean) =
    Feature(name, key, blocks, (o, _) => active(o))
  private def whenSet(name: String, key: String, blocks: Set[TableOperation] = TableOperation.All) =
    when(name, key, blocks)(set(key))
  private def whenTrue(name: String, key: String, blocks: Set[TableOperation] = TableOperation.All) =
    when(name, key, blocks)(is(key, "true"))

  /** Active when the key holds a value other than Paimon's default (compared without case). */
  private def unlessDefault(name: String, key: String, default: String, blocks: Set[TableOperation] = TableOperation.All) =
    when(name, key, blocks)(o => o.get(key).exists(v => !v.trim.equalsIgnoreCase(default)))

  /** Values of `scan.mode` whose batch read is the latest snapshot, or the one `scan.snapshot-id` /
   *  `scan.timestamp-millis` name, which Lamina implements. */
  private val BatchScanModes = Set("default", "latest", "latest-full", "full", "from-snapshot", "from-snapshot-full",
    "from-timestamp")

  val All: Seq[Feature] = Seq(
    Feature("postponed buckets on a table without a primary key", CoreOptions.Bucket.key, TableOperation.All,
      (o, pk) => !pk && o.get(CoreOptions.Bucket.key).exists(_.trim == "-2"),
      "which Paimon does not allow either"),
    Feature("a changelog producer on a table without a primary key", CoreOptions.ChangelogProducer.key,
      TableOperation.All, (o, pk) => !pk && CoreOptions.ChangelogProducer.getOrDefault(o) != ChangelogProducer.None,
      "which Paimon does not allow either (an append table's files are its changelog)"),
    Feature("changelogs kept longer than snapshots on a table without a changelog producer",
      CoreOptions.ChangelogNumRetainedMin.key, TableOperation.All,
      (o, _) =>
        ChangelogRetention.outlivesSnapshots(o) && CoreOptions.ChangelogProducer.getOrDefault(o) == ChangelogProducer.None,
      "which Lamina does not implement (it keeps the changelog files of a changelog-producer only)"),
    whenSet("a fallback branch", "scan.fallback-branch"),
    whenSet("a primary branch other than main", "scan.primary-branch"),
    whenTrue("chain tables", "chain-table.enabled"),
    Feature("external data paths placed by a strategy Lamina does not write (entropy-inject, weight-robin)",
      CoreOptions.DataFileExternalPathsStrategy.key, Set(Write, Compact),
      (o, _) => CoreOptions.DataFileExternalPathsStrategy.get(o).exists(s => !ExternalPathStrategy.Written(s)),
      "which Lamina reads but does not write (none, round-robin and specific-fs are written)"),
    whenSet("a data-file directory", "data-file.path-directory"),
    Feature("thin data files (no key columns)", "data-file.thin-mode", TableOperation.All,
      (o, pk) => pk && is("data-file.thin-mode", "true")(o)),
    unlessDefault("manifests in a format other than Avro", "manifest.format", "avro"),
    whenTrue("index files in data-file directories", "index-file-in-data-file-dir"),
    whenTrue("row tracking", "row-tracking.enabled"),
    whenTrue("data evolution", "data-evolution.enabled"),
    whenSet("upsert keys", "upsert-key"),
    unlessDefault("a table type other than a Paimon table", "type", "table"),
    whenSet("BLOB columns", "blob-field"),
    whenSet("vector columns", "vector-field"),
    whenSet("variant shredding", "variant.shreddingSchema"),
    whenTrue("variant shredding", "variant.inferShreddingSchema"),
    whenTrue("primary-key clustering", "pk-clustering-override"),
    whenSet("removing partial-update rows by sequence group", "partial-update.remove-record-on-sequence-group"),
    Feature("a bucket function other than Paimon's default", "bucket-function.type", Set(Write, Compact),
      (o, _) => o.get("bucket-function.type").exists(v => !v.trim.equalsIgnoreCase("default"))),
    when("a stored scan mode", "scan.mode", Set(Read))(o => o.get("scan.mode").exists(v => !BatchScanModes(v.trim.toLowerCase))),
    whenSet("a stored scan timestamp", "scan.timestamp", Set(Read)),
    whenSet("a stored scan watermark", "scan.watermark", Set(Read)),
    whenSet("a stored scan by file creation time", "scan.file-creation-time-millis", Set(Read)),
    whenSet("a stored scan by creation time", "scan.creation-time-millis", Set(Read)),
    whenSet("a stored scan tag", "scan.tag-name", Set(Read)),
    whenSet("a stored scan version", "scan.version", Set(Read)),
    whenSet("a stored incremental read", "incremental-to-auto-tag", Set(Read)),
    unlessDefault("a stored batch scan mode", "batch-scan-mode", "none", Set(Read)),
    unlessDefault("a stored stream scan mode", "stream-scan-mode", "none", Set(Read)),
    whenTrue("reading the changelog", "read.changelog", Set(Read))
  )

  private val featureKeys: Set[String] = All.map(_.key).toSet

  /** The per-column settings (`fields.<column>.<setting>`) Lamina implements; Paimon's others
   *  (`default-value`, ...) are refused by name. */
  val ColumnSettings: Set[String] =
    Set("aggregate-function", "ignore-retract", "sequence-group", "list-agg-delimiter", "distinct", "stats-mode",
      "nested-key", "count-limit", "ts-field")

  /** How Lamina treats a key stored in a table's options. */
  sealed trait Support
  object Support {
    case object Implemented extends Support
    final case class Harmless(why: String) extends Support

    /** A feature Lamina refuses for some operations when the option asks for it. */
    case object Feature extends Support

    /** A key of the user's own (`owner.team`), kept and ignored as Paimon and Delta keep it. */
    case object UserKey extends Support

    /** A key in Paimon's option space that Lamina does not know: refused for every operation. */
    case object Unknown extends Support
  }

  def support(key: String): Support =
    if (CoreOptions.find(key).isDefined || FileIndexOptions.ColumnKey.matches(key)) Support.Implemented
    else if (featureKeys.contains(key)) Support.Feature
    else if (key.startsWith("fields.") && key.count(_ == '.') >= 2)
      if (ColumnSettings.contains(key.split('.').drop(2).mkString("."))) Support.Implemented else Support.Unknown
    else
      HarmlessOptions.reason(key).map(Support.Harmless(_))
        .getOrElse(if (CoreOptions.isUserKey(key)) Support.UserKey else Support.Unknown)

  /** The features of `options` that make `operation` wrong. */
  def blocking(options: Map[String, String], primaryKeyTable: Boolean, operation: TableOperation): Seq[Feature] =
    All.filter(f => f.blocks.contains(operation) && f.active(options, primaryKeyTable))

  /** Refuses a CREATE or ALTER that would give a table a feature Lamina does not implement. */
  def checkDefinition(table: String, options: Map[String, String], primaryKeyTable: Boolean): Unit =
    All.find(f => f.active(options, primaryKeyTable)).foreach { f =>
      throw new BadInputException(
        s"Table $table: '${f.key}' = '${options.getOrElse(f.key, "")}' asks for ${f.name}, which Lamina does not implement")
    }

  /** Refuses `operation` on a table whose stored options ask for a feature that the operation would get
   *  wrong, or hold a key of Paimon's that Lamina does not know (a newer Paimon's, or a per-column
   *  setting it does not implement): every stored key is implemented, harmless ([[HarmlessOptions]]),
   *  the user's own, or refused here. */
  def check(table: String, options: Map[String, String], primaryKeyTable: Boolean, operation: TableOperation): Unit = {
    blocking(options, primaryKeyTable, operation).headOption.foreach { f =>
      throw new BadInputException(
        s"Table $table uses ${f.name} ('${f.key}' = '${options.getOrElse(f.key, "")}'), ${f.lacking}: " +
          s"${operation.describe} is refused, so that the table stays right for Paimon's readers")
    }
    options.keys.toSeq.sorted.find(k => support(k) == Support.Unknown).foreach { k =>
      throw new BadInputException(
        s"Table $table stores option '$k' = '${options(k)}', which Lamina does not know: ${operation.describe} is " +
          "refused, since the option may change what the table holds")
    }
  }
}
