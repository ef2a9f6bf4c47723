package lamina.format

import lamina.errors.BadInputException

/** Paimon's `metadata.stats-mode` (and `fields.<name>.stats-mode`): what a data file's stats keep for a
 *  column. */
sealed trait StatsMode extends Serializable
object StatsMode {

  /** Neither bounds nor null count: all three stats are null. */
  case object NoStats extends StatsMode

  /** Null count only. */
  case object Counts extends StatsMode

  /** Exact min and max. */
  case object Full extends StatsMode

  /** Strings cut to `length` code points: min is the prefix, max the prefix with its last incrementable
   *  code point incremented (null bounds when none is). Other types as [[Full]]. */
  final case class Truncate(length: Int) extends StatsMode {
    require(length > 0, s"truncate length must be positive, got $length")
  }

  /** Paimon's default, `truncate(16)`. */
  val Default: StatsMode = Truncate(16)

  private val TruncatePattern = """(?i)truncate\((\d+)\)""".r

  /** Parses Paimon's option values: none, counts, full, truncate(n); case-insensitive. */
  def parse(s: String): StatsMode = s.trim match {
    case v if v.equalsIgnoreCase("none") => NoStats
    case v if v.equalsIgnoreCase("counts") => Counts
    case v if v.equalsIgnoreCase("full") => Full
    case TruncatePattern(n) if n.length <= 9 && n.toInt > 0 => Truncate(n.toInt)
    case other => throw new BadInputException(
        s"Invalid stats mode '$other': expected none, counts, full or truncate(n) with n > 0")
  }
}
