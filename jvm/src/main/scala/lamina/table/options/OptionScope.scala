package lamina.table.options

/** Where an option may be set. Every option can be a table option; only [[OptionScope.PerQuery]]
 *  options may also be set for one session or one read or write. */
sealed abstract class OptionScope(name: String) extends EnumValue(name)

object OptionScope {

  /** Defines what the table holds (keys, buckets, merge engine, file format, ...): set at CREATE TABLE
   *  and changed only by ALTER TABLE, never for one query, since the table's files depend on it. */
  case object Table extends OptionScope("table")

  /** Says how one read or write runs (file sizes, compression, compaction triggers, time travel, ...):
   *  also settable by the session conf `spark.lamina.<key>` or a read or write option. */
  case object PerQuery extends OptionScope("per query")

  val All: Seq[OptionScope] = Seq(Table, PerQuery)
}
