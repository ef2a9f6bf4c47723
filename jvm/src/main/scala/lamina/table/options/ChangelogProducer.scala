package lamina.table.options

/** How a primary-key table produces its changelog for streaming reads (table option
 *  [[CoreOptions.ChangelogProducer]], Paimon's values). Lamina implements only [[ChangelogProducer.None]];
 *  a table Paimon created with another producer is read, and refuses writes and compaction
 *  ([[UnsupportedFeatures]]). */
sealed abstract class ChangelogProducer(name: String) extends EnumValue(name)

object ChangelogProducer {

  /** No changelog files: the table's snapshots are its only history. */
  case object None extends ChangelogProducer("none")

  /** The written records themselves, as Paimon writes them. */
  case object Input extends ChangelogProducer("input")

  /** Changelog produced by lookup compaction. */
  case object Lookup extends ChangelogProducer("lookup")

  /** Changelog produced by full compactions. */
  case object FullCompaction extends ChangelogProducer("full-compaction")

  val All: Seq[ChangelogProducer] = Seq(None, Input, Lookup, FullCompaction)
}
