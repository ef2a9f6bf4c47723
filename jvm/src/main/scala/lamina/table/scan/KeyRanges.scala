package lamina.table.scan

import lamina.mergetree.KeyRange
import lamina.table.predicate._

/** The range of a single integral key that a read's predicates (all of which hold) leave: equality,
 *  IN and the four comparisons on the key, alone or under AND, each narrow it; any other predicate
 *  leaves it as it is. None when nothing narrows it. Literals count only when they are integral
 *  numbers (Spark casts a comparison's literal to the column's type before it pushes the filter);
 *  a key of another type (DATE, TIMESTAMP) is never narrowed. */
object KeyRanges {

  def of(predicates: Seq[Predicate], key: String): Option[KeyRange] = {
    val bounds = predicates.flatMap(rangeOf(_, key))
    if (bounds.isEmpty) None else Some(bounds.reduce(_ intersect _))
  }

  private val Empty = KeyRange(Long.MaxValue, Long.MinValue)

  private def integral(v: Any): Option[Long] = v match {
    case n @ (_: java.lang.Long | _: java.lang.Integer | _: java.lang.Short | _: java.lang.Byte) =>
      Some(n.asInstanceOf[Number].longValue)
    case _ => None
  }

  private def rangeOf(p: Predicate, key: String): Option[KeyRange] = p match {
    case EqualTo(`key`, v) => integral(v).map(x => KeyRange(x, x))
    case GreaterThanOrEqual(`key`, v) => integral(v).map(x => KeyRange(x, Long.MaxValue))
    case LessThanOrEqual(`key`, v) => integral(v).map(x => KeyRange(Long.MinValue, x))
    case GreaterThan(`key`, v) => integral(v).map(x => if (x == Long.MaxValue) Empty else KeyRange(x + 1, Long.MaxValue))
    case LessThan(`key`, v) => integral(v).map(x => if (x == Long.MinValue) Empty else KeyRange(Long.MinValue, x - 1))
    case In(`key`, values) =>
      // a NULL among the values matches no key; a value of another kind leaves the range unknown
      val present = values.toSeq.filter(_ != null)
      val keys = present.flatMap(integral)
      if (keys.size != present.size) None else Some(if (keys.isEmpty) Empty else KeyRange(keys.min, keys.max))
    case And(l, r) =>
      (rangeOf(l, key), rangeOf(r, key)) match {
        case (Some(a), Some(b)) => Some(a intersect b)
        case (a, b) => a.orElse(b)
      }
    case _ => None
  }
}
