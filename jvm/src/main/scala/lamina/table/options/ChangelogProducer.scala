package lamina.table.options

/** How a primary-key table produces its changelog for streaming reads (table option
 *  [[CoreOptions.ChangelogProducer]], Paimon's values and changelog files). */
sealed abstract class ChangelogProducer(name: String) extends EnumValue(name)

object ChangelogProducer {

  /** No changelog files: the table's snapshots are its only history. */
  case object None extends ChangelogProducer("none")

  /** The written records themselves, as Paimon writes them. */
  case object Input extends ChangelogProducer("input")

  /** Changelog produced by lookup compaction: each key a write's level-0 files hold, its row before
   *  (looked up in the higher levels) against its merged row. */
  case object Lookup extends ChangelogProducer("lookup")

  /** Changelog produced by full compactions: each key's row in the top level before against after. */
  case object FullCompaction extends ChangelogProducer("full-compaction")

  val All: Seq[ChangelogProducer] = Seq(None, Input, Lookup, FullCompaction)
}
