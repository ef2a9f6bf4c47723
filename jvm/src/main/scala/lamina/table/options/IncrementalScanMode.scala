package lamina.table.options

/** What an incremental read (`incremental-between`, [[CoreOptions.IncrementalBetweenScanMode]]) reads
 *  of the snapshots it spans, Paimon's values. */
sealed abstract class IncrementalScanMode(name: String) extends EnumValue(name)

object IncrementalScanMode {

  /** [[Changelog]] on a table with a changelog producer, [[Delta]] otherwise. */
  case object Auto extends IncrementalScanMode("auto")

  /** The files each APPEND snapshot added, as written (every record with its own row kind). */
  case object Delta extends IncrementalScanMode("delta")

  /** The changelog files of each snapshot. */
  case object Changelog extends IncrementalScanMode("changelog")

  /** The difference between the table at the start snapshot and at the end snapshot. */
  case object Diff extends IncrementalScanMode("diff")

  val All: Seq[IncrementalScanMode] = Seq(Auto, Delta, Changelog, Diff)
}
