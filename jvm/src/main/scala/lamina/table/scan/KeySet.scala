package lamina.table.scan

import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.types.{
  BooleanType,
  ByteType,
  DataType => SparkType,
  DateType,
  Decimal,
  DecimalType,
  IntegerType,
  LongType,
  ShortType,
  StringType,
  TimestampNTZType,
  TimestampType
}

import lamina.mergetree.LongKeys

/** The values one column may take in the rows a read needs, known only when the query runs: the
 *  values the other side of a join holds for the column it is joined on (a MERGE's source keys).
 *  Rows with another value cannot match, so a file whose range of the column holds none of the
 *  values, a bucket none of them hashes to and a row with another value need not be read.
 *
 *  Values are Spark's internal ones. Only types whose values are equal exactly when their internal
 *  values are equal and hash alike ([[KeySet.supports]]): no floating point (NaN, -0.0), binary
 *  (arrays compare by reference) or collated strings. NULL matches nothing in an equi-join and is
 *  dropped. */
final class KeySet(val column: String, val dataType: SparkType, values: Array[Any]) extends Serializable {
  require(KeySet.supports(dataType), s"a key set of column $column cannot hold values of type $dataType")

  @transient private lazy val ordering: Ordering[Any] = PhysicalDataType.ordering(dataType).asInstanceOf[Ordering[Any]]

  /** The distinct values, in the column's order (longs and ints sorted unboxed: a MERGE's source may
   *  hand a million keys). */
  val sorted: Array[Any] = dataType match {
    case LongType | TimestampType | TimestampNTZType =>
      LongKeys.distinctAscending(values.iterator.filter(_ != null).map(_.asInstanceOf[Long]).toArray).map(v => v: Any)
    case IntegerType | DateType =>
      LongKeys.distinctAscending(values.iterator.filter(_ != null).map(_.asInstanceOf[Int].toLong).toArray)
        .map(v => v.toInt: Any)
    case _ =>
      val distinct = values.iterator.filter(_ != null).toArray.distinct
      scala.util.Sorting.stableSort(distinct, (a: Any, b: Any) => ordering.lt(a, b))
      distinct
  }

  @transient private lazy val members: java.util.HashSet[Any] = {
    val s = new java.util.HashSet[Any](math.max(16, sorted.length * 2))
    sorted.foreach(s.add)
    s
  }

  def size: Int = sorted.length

  /** The values as the long forms of an integral key ([[LongKeys]]), for the types that have one
   *  ([[lamina.mergetree.KeyOrder.longKeyOf]]). */
  @transient lazy val longKeys: Option[LongKeys] = {
    def longs(f: Any => Long) = Some(LongKeys.of(sorted.map(f)))
    dataType match {
      case LongType | TimestampType | TimestampNTZType => longs(_.asInstanceOf[Long])
      case IntegerType | DateType => longs(_.asInstanceOf[Int].toLong)
      case ShortType => longs(_.asInstanceOf[Short].toLong)
      case ByteType => longs(_.asInstanceOf[Byte].toLong)
      case _ => None
    }
  }

  def contains(value: Any): Boolean = value != null && members.contains(value)

  /** Whether some value lies in `[min, max]`; true when either bound is unknown (null). */
  def anyWithin(min: Any, max: Any): Boolean =
    if (min == null || max == null) true
    else {
      var lo = 0
      var hi = sorted.length
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (ordering.lt(sorted(mid), min)) lo = mid + 1 else hi = mid
      }
      lo < sorted.length && ordering.lteq(sorted(lo), max)
    }

  override def toString: String = s"$column IN (${sorted.length} values)"
}

object KeySet {

  def supports(t: SparkType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case _: DecimalType => true
    case s: StringType => s == StringType // the binary collation
    case _ => false
  }

  /** Whether `v` is an internal value of a supported type `t` (a filter's literal of another type,
   *  left as it was by a conversion, prunes nothing). */
  def holdsValueOf(t: SparkType, v: Any): Boolean = (t, v) match {
    case (LongType | TimestampType | TimestampNTZType, _: Long) => true
    case (IntegerType | DateType, _: Int) => true
    case (ShortType, _: Short) | (ByteType, _: Byte) | (BooleanType, _: Boolean) => true
    case (_: DecimalType, _: Decimal) | (_: StringType, _: UTF8String) => true
    case _ => false
  }
}
