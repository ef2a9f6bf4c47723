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
}
