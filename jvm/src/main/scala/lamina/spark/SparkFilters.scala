package lamina.spark

import org.apache.spark.sql.sources

import lamina.table.predicate._

/** Spark's data-source filters as Lamina [[Predicate]]s: the one place Spark's filter classes meet
 *  the engine. A filter Lamina has no predicate for becomes [[Unsupported]], which evaluates to
 *  unknown, so every condition keeps its meaning (pruning stays conservative). */
object SparkFilters {
  def toPredicate(f: sources.Filter): Predicate = f match {
    case sources.EqualTo(a, v) => EqualTo(a, v)
    case sources.EqualNullSafe(a, v) => EqualNullSafe(a, v)
    case sources.GreaterThan(a, v) => GreaterThan(a, v)
    case sources.GreaterThanOrEqual(a, v) => GreaterThanOrEqual(a, v)
    case sources.LessThan(a, v) => LessThan(a, v)
    case sources.LessThanOrEqual(a, v) => LessThanOrEqual(a, v)
    case sources.In(a, vs) => In(a, vs)
    case sources.IsNull(a) => IsNull(a)
    case sources.IsNotNull(a) => IsNotNull(a)
    case sources.StringStartsWith(a, p) => StringStartsWith(a, p)
    case sources.StringEndsWith(a, p) => StringEndsWith(a, p)
    case sources.StringContains(a, p) => StringContains(a, p)
    case sources.And(l, r) => And(toPredicate(l), toPredicate(r))
    case sources.Or(l, r) => Or(toPredicate(l), toPredicate(r))
    case sources.Not(c) => Not(toPredicate(c))
    case sources.AlwaysTrue() => AlwaysTrue()
    case sources.AlwaysFalse() => AlwaysFalse()
    case other => Unsupported(other.toString, other.references.toSeq)
  }

  def toPredicates(fs: Seq[sources.Filter]): Seq[Predicate] = fs.map(toPredicate)

  /** `f` over columns renamed by `rename`, the same condition, or None when `f` holds a filter class
   *  this does not know (dropping such a pruning filter only reads more). */
  def renamed(f: sources.Filter, rename: String => String): Option[sources.Filter] = {
    def r(g: sources.Filter): Option[sources.Filter] = g match {
      case sources.EqualTo(a, v) => Some(sources.EqualTo(rename(a), v))
      case sources.EqualNullSafe(a, v) => Some(sources.EqualNullSafe(rename(a), v))
      case sources.GreaterThan(a, v) => Some(sources.GreaterThan(rename(a), v))
      case sources.GreaterThanOrEqual(a, v) => Some(sources.GreaterThanOrEqual(rename(a), v))
      case sources.LessThan(a, v) => Some(sources.LessThan(rename(a), v))
      case sources.LessThanOrEqual(a, v) => Some(sources.LessThanOrEqual(rename(a), v))
      case sources.In(a, vs) => Some(sources.In(rename(a), vs))
      case sources.IsNull(a) => Some(sources.IsNull(rename(a)))
      case sources.IsNotNull(a) => Some(sources.IsNotNull(rename(a)))
      case sources.StringStartsWith(a, p) => Some(sources.StringStartsWith(rename(a), p))
      case sources.StringEndsWith(a, p) => Some(sources.StringEndsWith(rename(a), p))
      case sources.StringContains(a, p) => Some(sources.StringContains(rename(a), p))
      case sources.And(a, b) => for (x <- r(a); y <- r(b)) yield sources.And(x, y)
      case sources.Or(a, b) => for (x <- r(a); y <- r(b)) yield sources.Or(x, y)
      case sources.Not(c) => r(c).map(sources.Not)
      case t @ sources.AlwaysTrue() => Some(t)
      case t @ sources.AlwaysFalse() => Some(t)
      case _ => None
    }
    r(f)
  }
}
