package lamina.table.options

import lamina.errors.BadInputException
import lamina.format.DataFileFormat

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
 *  wrong: Lamina reads a table with deletion vectors (applying them), but writing one, or compacting
 *  it, would need the lookup compaction that maintains its vectors; an INSERT into a
 *  dynamic-bucket table may put a key into a second bucket; a write into a table with a changelog
 *  producer commits no changelog. Such an operation is refused, naming the feature and the option,
 *  before anything is read or written. */
object UnsupportedFeatures {
  import TableOperation._

  /** `lacking` says what of the feature Lamina lacks, in the refusal's words. */
  final case class Feature(name: String, key: String, blocks: Set[TableOperation],
      active: (Map[String, String], Boolean) => Boolean, lacking: String = "which Lamina does not implement")

  private def is(key: String, value: String)(o: Map[String, String]): Boolean =
    o.get(key).exists(_.trim.equalsIgnoreCase(value))
  private def set(key: String)(o: Map[String, String]): Boolean = o.get(key).exists(_.trim.nonEmpty)

  val All: Seq[Feature] = Seq(
    Feature("deletion vectors", "deletion-vectors.enabled", Set(Write, Compact),
      (o, _) => is("deletion-vectors.enabled", "true")(o),
      "which Lamina reads but cannot write yet (writes and compaction must maintain the vectors by lookup compaction)"),
    Feature("dynamic bucket mode", CoreOptions.Bucket.key, Set(Write, Compact),
      (o, pk) => pk && CoreOptions.Bucket.getOrDefault(o) == -1),
    Feature("a changelog producer", CoreOptions.ChangelogProducer.key, Set(Write, Compact),
      (o, _) => CoreOptions.ChangelogProducer.getOrDefault(o) != ChangelogProducer.None),
    Feature("descending sequence order", "sequence.field.sort-order", TableOperation.All,
      (o, _) => is("sequence.field.sort-order", "descending")(o)),
    Feature("a fallback branch", "scan.fallback-branch", TableOperation.All, (o, _) => set("scan.fallback-branch")(o)),
    Feature("external data paths", "data-file.external-paths", TableOperation.All, (o, _) => set("data-file.external-paths")(o)),
    Feature("file formats per level", "file.format.per.level", TableOperation.All, (o, _) => set("file.format.per.level")(o)),
    Feature("record-level expiration", "record-level.expire-time", TableOperation.All,
      (o, _) => set("record-level.expire-time")(o)),
    Feature("row tracking", "row-tracking.enabled", TableOperation.All, (o, _) => is("row-tracking.enabled", "true")(o)),
    Feature("data evolution", "data-evolution.enabled", TableOperation.All, (o, _) => is("data-evolution.enabled", "true")(o)),
    Feature("a bucket function other than Paimon's default", "bucket-function.type", Set(Write, Compact),
      (o, _) => o.get("bucket-function.type").exists(v => !v.trim.equalsIgnoreCase("default"))),
    Feature("Avro data files", CoreOptions.FileFormat.key, TableOperation.All,
      (o, _) => CoreOptions.FileFormat.getOrDefault(o) == DataFileFormat.Avro))

  /** The features of `options` that make `operation` wrong. */
  def blocking(options: Map[String, String], primaryKeyTable: Boolean, operation: TableOperation): Seq[Feature] =
    All.filter(f => f.blocks.contains(operation) && f.active(options, primaryKeyTable))

  /** Refuses a CREATE or ALTER that would give a table a feature Lamina does not implement. */
  def checkDefinition(table: String, options: Map[String, String], primaryKeyTable: Boolean): Unit =
    All.find(f => f.active(options, primaryKeyTable)).foreach { f =>
      throw new BadInputException(
        s"Table $table: '${f.key}' = '${options.getOrElse(f.key, "")}' asks for ${f.name}, which Lamina does not implement")
    }

  def check(table: String, options: Map[String, String], primaryKeyTable: Boolean, operation: TableOperation): Unit =
    blocking(options, primaryKeyTable, operation).headOption.foreach { f =>
      throw new BadInputException(
        s"Table $table uses ${f.name} ('${f.key}' = '${options.getOrElse(f.key, "")}'), ${f.lacking}: " +
          s"${operation.describe} is refused, so that the table stays right for Paimon's readers")
    }
}
