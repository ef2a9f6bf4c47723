package lamina.mergetree

import lamina.mergetree.{MergeEngine => Engine}
import lamina.table.options.{CoreOptions, OptionDef, OptionKind}
import lamina.table.options.OptionKind._

/** Options of primary-key tables (merge engines, write buffer, compaction), with Paimon's keys.
 *  [[register]] adds them to [[CoreOptions]] so that tables accept them. Per-field options
 *  (`fields.<f>.aggregate-function`, `fields.<f>.sequence-group`, ...) are patterns that
 *  CoreOptions accepts already; [[MergeFunctions.create]] checks them against the schema. */
object MergeTreeOptions {
  private val defs = scala.collection.mutable.ArrayBuffer.empty[OptionDef[_]]

  private def define[T](key: String, kind: OptionKind[T], default: String, doc: String): OptionDef[T] = {
    val d = OptionDef(key, kind, Option(default), doc)
    defs += d
    d
  }

  val MergeEngines: Seq[String] = Engine.All.map(_.name)

  /** Read through [[Engine.of]], which gives the typed engine. */
  val MergeEngine: OptionDef[String] = define(Engine.Key, enumOf(MergeEngines)(identity), Engine.Default.name,
    "How records of one primary key merge: deduplicate keeps the latest, partial-update overwrites " +
      "with the non-null fields of later records, aggregation applies per-field aggregate functions, " +
      "first-row keeps the earliest.")
  val SequenceField: OptionDef[Seq[String]] = define("sequence.field", ListKind, null,
    "Comma-separated columns that order the records of one key: the larger value is the later " +
      "record; ties fall back to write order.")
  val WriteBufferSize: OptionDef[Long] = define("write-buffer-size", PositiveMemorySizeKind, "256 mb",
    "Accepted for Paimon compatibility. Lamina sorts written rows with Spark's external sorter, which is " +
      "bounded by Spark's execution memory and spills to local disk, so one write makes one sorted run per bucket and task.")
  val WriteBufferSpillable: OptionDef[Boolean] = define("write-buffer-spillable", BooleanKind, "true",
    "Accepted for Paimon compatibility. Lamina's write sort always spills (see write-buffer-size).")
  val WriteOnly: OptionDef[Boolean] = define("write-only", BooleanKind, "false",
    "If true, writes never compact; compaction is left to CALL sys.compact or the compaction job. Otherwise the " +
      "buckets a write touched are compacted (universal compaction) in a COMPACT snapshot right after it.")
  val CompactionMaxSizeAmplificationPercent: OptionDef[Int] = define(
    "compaction.max-size-amplification-percent", intAtLeast(0), "200",
    "Full compaction is picked when the sorted runs other than the oldest add up to more than this " +
      "percentage of the oldest run's size.")
  val CompactionSizeRatio: OptionDef[Int] = define("compaction.size-ratio", intAtLeast(0), "1",
    "Percentage of flexibility when comparing sorted-run sizes: a run joins the compaction when its " +
      "size is at most the candidates' total size times (100 + ratio) percent.")
  val NumSortedRunCompactionTrigger: OptionDef[Int] = define("num-sorted-run.compaction-trigger", intAtLeast(1), "5",
    "Number of sorted runs (each level-0 file counts as one) that triggers compaction.")
  val NumSortedRunStopTrigger: OptionDef[Int] = define("num-sorted-run.stop-trigger", intAtLeast(1), null,
    "Number of sorted runs above which Paimon's writers pause until compaction catches up. Lamina " +
      "compacts the buckets a write touched within that write (unless write-only) and does not pause " +
      "writes; the option is kept for tables shared with Paimon. Defaults to num-sorted-run.compaction-trigger + 3.")
  val NumLevels: OptionDef[Int] = define("num-levels", intAtLeast(2), null,
    "Number of levels of the merge tree. Defaults to num-sorted-run.compaction-trigger + 1.")
  val IgnoreDelete: OptionDef[Boolean] = define("ignore-delete", BooleanKind, "false",
    "Whether delete and update-before records are ignored: dropped on write and skipped when merging.")
  val PartialUpdateRemoveRecordOnDelete: OptionDef[Boolean] = define(
    "partial-update.remove-record-on-delete", BooleanKind, "false",
    "For merge-engine partial-update: whether a delete record removes the whole row; later records " +
      "of the key start from an empty row.")
  val AggregationRemoveRecordOnDelete: OptionDef[Boolean] = define(
    "aggregation.remove-record-on-delete", BooleanKind, "false",
    "For merge-engine aggregation: whether a delete record removes the whole row instead of being " +
      "retracted column by column; later records of the key start from an empty row.")
  val DefaultAggregateFunction: OptionDef[String] = define("fields.default-aggregate-function", StringKind, null,
    "For merge-engine aggregation: the aggregate function of non-key columns without " +
      "fields.<f>.aggregate-function. Defaults to last_non_null_value.")
  val RowKindField: OptionDef[String] = define("rowkind.field", StringKind, null,
    "A STRING column of a primary-key table whose value gives the kind of each row an INSERT or DataFrame write " +
      "writes: '+I' insert, '-U' update-before, '+U' update-after, '-D' delete (Paimon's short strings); a change " +
      "stream applies by appending it. The column is stored like any other. Row-level DML writes its own kinds.")
  val ChangelogProducer: OptionDef[String] = define("changelog-producer", enumOf(Seq("none", "input", "lookup", "full-compaction"))(identity), "none",
    "How a primary-key table produces its changelog for streaming reads. Only none is implemented: tables that " +
      "Paimon created with another producer are read, and refuse writes and compaction.")

  def all: Seq[OptionDef[_]] = defs.toSeq

  /** Makes tables accept these keys. Idempotent. */
  def register(): Unit = all.foreach(CoreOptions.registerExternal)

  def numSortedRunCompactionTrigger(options: Map[String, String]): Int =
    NumSortedRunCompactionTrigger.getOrDefault(options)

  def numSortedRunStopTrigger(options: Map[String, String]): Int =
    NumSortedRunStopTrigger.get(options).getOrElse(numSortedRunCompactionTrigger(options) + 3)

  def numLevels(options: Map[String, String]): Int =
    NumLevels.get(options).getOrElse(numSortedRunCompactionTrigger(options) + 1)
}
