package lamina.table.scan

import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types.{DataType => SparkType}
import org.apache.spark.unsafe.types.UTF8String

/** Evaluates Spark data-source filters on plain values: exactly on a row (partition pruning), and
 *  conservatively on min/max/null-count statistics (file skipping). Pure functions.
 *  Contract of `mightMatch`: false only when no row described by the stats can satisfy the filter. */
object PredicateEval {

  /** Column statistics: min and max as Spark internal values (null when unknown), null count and
   *  row count (None when unknown). */
  final case class ColumnStats(min: Any, max: Any, nullCount: Option[Long], rowCount: Long, dataType: SparkType)

  /** Exact evaluation on a row; None when the filter references a column `lookup` does not know. */
  def eval(f: Filter, value: String => Option[(Any, SparkType)]): Option[Boolean] = {
    def cmp(attr: String, lit: Any)(ok: Int => Boolean): Option[Boolean] = value(attr).map {
      case (null, _) => false
      case (v, t) => compare(v, lit, t).forall(ok)
    }
    f match {
      case EqualTo(a, v) => cmp(a, v)(_ == 0)
      case EqualNullSafe(a, v) => value(a).map { case (x, t) =>
        if (x == null || v == null) x == null && v == null else compare(x, v, t).forall(_ == 0) }
      case GreaterThan(a, v) => cmp(a, v)(_ > 0)
      case GreaterThanOrEqual(a, v) => cmp(a, v)(_ >= 0)
      case LessThan(a, v) => cmp(a, v)(_ < 0)
      case LessThanOrEqual(a, v) => cmp(a, v)(_ <= 0)
      case In(a, vs) => value(a).map { case (x, t) => x != null && vs.exists(v => v != null && compare(x, v, t).forall(_ == 0)) }
      case IsNull(a) => value(a).map(_._1 == null)
      case IsNotNull(a) => value(a).map(_._1 != null)
      case StringStartsWith(a, p) => value(a).map { case (x, _) => x != null && x.toString.startsWith(p) }
      case StringEndsWith(a, p) => value(a).map { case (x, _) => x != null && x.toString.endsWith(p) }
      case StringContains(a, p) => value(a).map { case (x, _) => x != null && x.toString.contains(p) }
      case And(l, r) => (eval(l, value), eval(r, value)) match {
        case (Some(false), _) | (_, Some(false)) => Some(false)
        case (Some(true), Some(true)) => Some(true)
        case _ => None
      }
      case Or(l, r) => (eval(l, value), eval(r, value)) match {
        case (Some(true), _) | (_, Some(true)) => Some(true)
        case (Some(false), Some(false)) => Some(false)
        case _ => None
      }
      case Not(c) => eval(c, value).map(!_)
      case AlwaysTrue() => Some(true)
      case AlwaysFalse() => Some(false)
      case _ => None
    }
  }

  /** Conservative evaluation on statistics: true when some row may match. */
  def mightMatch(f: Filter, stats: String => Option[ColumnStats]): Boolean = {
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

  private def toInternal(v: Any, t: SparkType): Any = {
    val c = try CatalystTypeConverters.convertToCatalyst(v) catch { case _: Exception => null }
    (c, t) match {
      case (i: Int, _: org.apache.spark.sql.types.LongType) => i.toLong
      case (i: Int, _: org.apache.spark.sql.types.ShortType) => i.toShort
      case (i: Int, _: org.apache.spark.sql.types.ByteType) => i.toByte
      case (l: Long, _: org.apache.spark.sql.types.IntegerType) if l.isValidInt => l.toInt
      case (f: Float, _: org.apache.spark.sql.types.DoubleType) => f.toDouble
      case _ => c
    }
  }
}
