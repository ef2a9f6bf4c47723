package lamina.table.options

/** How the lookup compaction of a table with deletion vectors picks its runs (table option
 *  [[CoreOptions.LookupCompact]], Paimon's values). */
sealed abstract class LookupCompactMode(name: String) extends EnumValue(name)

object LookupCompactMode {

  /** Every compaction after a write pushes all level-0 files up (universal picking first): written
   *  rows are visible when the write returns. */
  case object Radical extends LookupCompactMode("radical")

  /** Universal picking; level 0 is pushed up only once `lookup-compact.max-interval` level-0 files
   *  wait in a bucket, so rows may stay invisible for some writes. */
  case object Gentle extends LookupCompactMode("gentle")

  val All: Seq[LookupCompactMode] = Seq(Radical, Gentle)
}
