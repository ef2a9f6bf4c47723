package lamina.table.predicate

import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.{ByteType, DataType => SparkType, DoubleType, IntegerType, LongType, ShortType}
import org.apache.spark.unsafe.types.UTF8String

/** Evaluates [[Predicate]]s on plain values: exactly on a row (partition pruning), and
 *  conservatively on min/max/null-count statistics (file skipping). Pure functions.
 *  Contract of `mightMatch`: false only when no row described by the stats can satisfy the filter. */
object PredicateEval {

  /** Column statistics: min and max as Spark internal values (null when unknown), null count and
   *  row count (None when unknown). */
  final case class ColumnStats(min: Any, max: Any, nullCount: Option[Long], rowCount: Long, dataType: SparkType)

  /** Exact evaluation on a row, with SQL's three-valued logic: a filter whose value is NULL (a
   *  comparison with a null, `NOT` of one, ...) does not match, so Some(false). None when the filter
   *  references a column `value` does not know or compares with a literal of another type. */
  def eval(f: Predicate, value: String => Option[(Any, SparkType)]): Option[Boolean] =
    eval3(f, value).map(_.getOrElse(false))

  /** Whether [[eval]] knows every node of the filter (so an unknown answer can only come from an
   *  unknown column or an incomparable literal). */
  def supported(f: Predicate): Boolean = f match {
    case _: EqualTo | _: EqualNullSafe | _: GreaterThan | _: GreaterThanOrEqual | _: LessThan |
        _: LessThanOrEqual | _: In | _: IsNull | _: IsNotNull | _: StringStartsWith | _: StringEndsWith |
        _: StringContains | _: AlwaysTrue | _: AlwaysFalse => true
    case And(l, r) => supported(l) && supported(r)
    case Or(l, r) => supported(l) && supported(r)
    case Not(c) => supported(c)
    case _ => false
  }

  /** Some(Some(b)): the filter is b; Some(None): it is NULL; None: unknown. */
  private def eval3(f: Predicate, value: String => Option[(Any, SparkType)]): Option[Option[Boolean]] = {
    val Null: Option[Option[Boolean]] = Some(None)
    def known(b: Boolean): Option[Option[Boolean]] = Some(Some(b))
    def cmp(attr: String, lit: Any)(ok: Int => Boolean): Option[Option[Boolean]] = value(attr).flatMap {
      case (null, _) => Null
      case _ if lit == null => Null
      case (v, t) => compare(v, lit, t).map(c => Some(ok(c)))
    }
    def str(attr: String)(test: String => Boolean): Option[Option[Boolean]] = value(attr).map {
      case (null, _) => None
      case (x, _) => Some(test(x.toString))
    }
    f match {
      case EqualTo(a, v) => cmp(a, v)(_ == 0)
      case EqualNullSafe(a, v) => value(a).flatMap { case (x, t) =>
          if (x == null || v == null) known(x == null && v == null) else compare(x, v, t).map(c => Some(c == 0))
        }
      case GreaterThan(a, v) => cmp(a, v)(_ > 0)
      case GreaterThanOrEqual(a, v) => cmp(a, v)(_ >= 0)
      case LessThan(a, v) => cmp(a, v)(_ < 0)
      case LessThanOrEqual(a, v) => cmp(a, v)(_ <= 0)
      case In(a, vs) => value(a).flatMap { case (x, t) =>
          if (vs.isEmpty) known(false)
          else if (x == null) Null
          else {
            val each = vs.toSeq.map(v => if (v == null) Null else compare(x, v, t).map(c => Some(c == 0)))
            if (each.contains(known(true))) known(true)
            else if (each.contains(None)) None
            else if (each.contains(Null)) Null
            else known(false)
          }
        }
      case IsNull(a) => value(a).map(v => Some(v._1 == null))
      case IsNotNull(a) => value(a).map(v => Some(v._1 != null))
      case StringStartsWith(a, p) => str(a)(_.startsWith(p))
      case StringEndsWith(a, p) => str(a)(_.endsWith(p))
      case StringContains(a, p) => str(a)(_.contains(p))
      case And(l, r) => (eval3(l, value), eval3(r, value)) match {
          case (Some(Some(false)), _) | (_, Some(Some(false))) => known(false)
          case (None, _) | (_, None) => None
          case (Some(Some(true)), Some(Some(true))) => known(true)
          case _ => Null
        }
      case Or(l, r) => (eval3(l, value), eval3(r, value)) match {
          case (Some(Some(true)), _) | (_, Some(Some(true))) => known(true)
          case (None, _) | (_, None) => None
          case (Some(Some(false)), Some(Some(false))) => known(false)
          case _ => Null
        }
      case Not(c) => eval3(c, value).map(_.map(!_))
      case AlwaysTrue() => known(true)
      case AlwaysFalse() => known(false)
      case _ => None
    }
  }

  /** Conservative evaluation on statistics: true when some row may match. */
  def mightMatch(f: Predicate, stats: String => Option[ColumnStats]): Boolean = {
    def range(a: String, v: Any)(test: (Int, Int) => Boolean): Boolean = stats(a) match {
      case Some(s) if s.min != null && s.max != null && v != null =>
        (compare(s.min, v, s.dataType), compare(s.max, v, s.dataType)) match {
          case (Some(lo), Some(hi)) => test(lo, hi)
          case _ => true
        }
      case Some(s) if s.nullCount.contains(s.rowCount) => false // all null: no comparison holds
      case _ => true
    }
    f match {
      case EqualTo(a, v) => range(a, v)((lo, hi) => lo <= 0 && hi >= 0)
      case GreaterThan(a, v) => range(a, v)((_, hi) => hi > 0)
      case GreaterThanOrEqual(a, v) => range(a, v)((_, hi) => hi >= 0)
      case LessThan(a, v) => range(a, v)((lo, _) => lo < 0)
      case LessThanOrEqual(a, v) => range(a, v)((lo, _) => lo <= 0)
      case In(a, vs) => vs.isEmpty || vs.exists(v => range(a, v)((lo, hi) => lo <= 0 && hi >= 0))
      case IsNull(a) => stats(a).forall(s => !s.nullCount.contains(0L))
      case IsNotNull(a) => stats(a).forall(s => !s.nullCount.contains(s.rowCount))
      case And(l, r) => mightMatch(l, stats) && mightMatch(r, stats)
      case Or(l, r) => mightMatch(l, stats) || mightMatch(r, stats)
      case AlwaysFalse() => false
      case _ => true
    }
  }

  /** Compares an internal value with a filter literal (an external value); None when the two are
   *  not comparable, which callers treat as "unknown". */
  def compare(internal: Any, literal: Any, t: SparkType): Option[Int] = {
    val lit = toInternal(literal, t)
    if (lit == null) return None
    try {
      (internal, lit) match {
        case (a: UTF8String, b: UTF8String) => Some(a.binaryCompare(b))
        case (a: Array[Byte], b: Array[Byte]) => Some(java.util.Arrays.compareUnsigned(a, b))
        case _ if internal.getClass != lit.getClass => None
        case _ => Some(PhysicalDataType.ordering(t).compare(internal, lit))
      }
    } catch { case _: ClassCastException | _: IllegalArgumentException => None }
  }

  private[table] def toInternal(v: Any, t: SparkType): Any = {
    val c =
      try CatalystTypeConverters.convertToCatalyst(v)
      catch { case _: Exception => null }
    (c, t) match {
      case (i: Int, _: LongType) => i.toLong
      case (i: Int, _: ShortType) => i.toShort
      case (i: Int, _: ByteType) => i.toByte
      case (l: Long, _: IntegerType) if l.isValidInt => l.toInt
      case (f: Float, _: DoubleType) => f.toDouble
      case _ => c
    }
  }
}
