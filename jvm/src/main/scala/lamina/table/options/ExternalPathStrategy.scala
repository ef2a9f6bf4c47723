package lamina.table.options

/** How a writer picks the external root of each new data file (table option
 *  [[CoreOptions.DataFileExternalPathsStrategy]], Paimon's values). Reads never depend on it: a file
 *  written outside the table directory records its full path in its metadata. */
sealed abstract class ExternalPathStrategy(name: String) extends EnumValue(name)

object ExternalPathStrategy {

  /** Data files stay in the table's directory, whatever `data-file.external-paths` lists. */
  case object NoExternal extends ExternalPathStrategy("none")

  /** Only the roots whose scheme is `data-file.external-paths.specific-fs`, taken in turn. */
  case object SpecificFs extends ExternalPathStrategy("specific-fs")

  /** Every root, taken in turn from a random start per writer of a bucket. */
  case object RoundRobin extends ExternalPathStrategy("round-robin")

  /** Paimon's hash-directory layout under each root: read, never written by Lamina. */
  case object EntropyInject extends ExternalPathStrategy("entropy-inject")

  /** Paimon's weighted choice of roots: read, never written by Lamina. */
  case object Weighted extends ExternalPathStrategy("weight-robin")

  val All: Seq[ExternalPathStrategy] = Seq(NoExternal, SpecificFs, RoundRobin, EntropyInject, Weighted)

  /** The strategies Lamina's writers implement. */
  val Written: Set[ExternalPathStrategy] = Set(NoExternal, SpecificFs, RoundRobin)
}
