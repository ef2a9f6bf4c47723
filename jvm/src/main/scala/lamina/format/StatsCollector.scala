package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.BadInputException
import lamina.types._

/** Accumulates per-column min, max and null count over rows, as Paimon's `metadata.stats-mode`
 *  defines them: `none` (no stats), `counts` (null counts only), `full`, or `truncate(N)` (strings
 *  cut to N characters; a cut max is rounded up so it still bounds every value, or dropped when it
 *  cannot be). Only atomic columns get min/max; nested ones get null counts.
 *  Invariant: for each column, min <= every non-null value seen <= max. */
final class StatsCollector private (types: Seq[DataType], ordinals: Array[Int], mode: StatsCollector.Mode) {
  private val n = ordinals.length
  private val sparkTypes = types.map(SparkTypes.toSpark).toArray
  private val orderings = sparkTypes.map(t => if (StatsCollector.hasMinMax(t)) PhysicalDataType.ordering(t) else null)
  private val mins = new Array[Any](n)
  private val maxs = new Array[Any](n)
  private val nulls = new Array[Long](n)

  def update(row: InternalRow): Unit = {
    if (mode == StatsCollector.None) return
    var i = 0
    while (i < n) {
      val o = ordinals(i)
      if (row.isNullAt(o)) nulls(i) += 1
      else if (mode != StatsCollector.Counts && orderings(i) != null) {
        val v = row.get(o, sparkTypes(i))
        if (mins(i) == null || orderings(i).lt(v, mins(i))) mins(i) = StatsCollector.copyValue(v)
        if (maxs(i) == null || orderings(i).gt(v, maxs(i))) maxs(i) = StatsCollector.copyValue(v)
      }
      i += 1
    }
  }

  /** (min row, max row, null counts), each serialized as Paimon stores them; None in mode `none`. */
  def result(): Option[(Array[Byte], Array[Byte], Seq[Option[Long]])] = {
    if (mode == StatsCollector.None) return Option.empty
    val minRow = new GenericInternalRow(n)
    val maxRow = new GenericInternalRow(n)
    (0 until n).foreach { i =>
      mode match {
        case StatsCollector.Truncate(len) =>
          minRow.update(i, truncateMin(mins(i), len))
          maxRow.update(i, truncateMax(maxs(i), len))
        case _ =>
          minRow.update(i, mins(i))
          maxRow.update(i, maxs(i))
      }
    }
    val statTypes = types.map(t => if (StatsCollector.hasMinMax(SparkTypes.toSpark(t))) t else IntType())
    Some((BinaryRowCodec.serialize(minRow, statTypes), BinaryRowCodec.serialize(maxRow, statTypes),
      nulls.toSeq.map(Some(_))))
  }

  private def truncateMin(v: Any, len: Int): Any = v match {
    case s: UTF8String if s.numChars() > len => s.substring(0, len)
    case other => other
  }

  private def truncateMax(v: Any, len: Int): Any = v match {
    case s: UTF8String if s.numChars() > len =>
      // round the last kept code point up so the cut value is still >= the original
      val cut = s.substring(0, len).toString
      val cps = cut.codePoints().toArray
      var i = cps.length - 1
      while (i >= 0 && cps(i) >= Character.MAX_CODE_POINT) i -= 1
      if (i < 0) null
      else {
        cps(i) += 1
        if (cps(i) >= Character.MIN_SURROGATE && cps(i) <= Character.MAX_SURROGATE) cps(i) = Character.MAX_SURROGATE + 1
        UTF8String.fromString(new String(cps, 0, i + 1))
      }
    case other => other
  }
}

object StatsCollector {
  sealed trait Mode
  case object None extends Mode
  case object Counts extends Mode
  case object Full extends Mode
  final case class Truncate(length: Int) extends Mode

  def parseMode(s: String): Mode = s.trim.toLowerCase match {
    case "none" => None
    case "counts" => Counts
    case "full" => Full
    case t if t.startsWith("truncate(") && t.endsWith(")") =>
      t.drop(9).dropRight(1).trim.toIntOption.filter(_ > 0).map(Truncate).getOrElse(
        throw new BadInputException(s"Invalid value '$s' for option 'metadata.stats-mode': expected none, counts, full or truncate(N)"))
    case _ => throw new BadInputException(s"Invalid value '$s' for option 'metadata.stats-mode': expected none, counts, full or truncate(N)")
  }

  def forMode(mode: String, types: Seq[DataType]): StatsCollector =
    new StatsCollector(types, types.indices.toArray, parseMode(mode))

  def apply(types: Seq[DataType], ordinals: Array[Int]): StatsCollector = new StatsCollector(types, ordinals, Full)

  def hasMinMax(t: org.apache.spark.sql.types.DataType): Boolean = {
    import org.apache.spark.sql.{types => st}
    t match {
      case st.BooleanType | st.ByteType | st.ShortType | st.IntegerType | st.LongType | st.FloatType |
           st.DoubleType | st.DateType | st.TimestampType | st.TimestampNTZType | st.BinaryType => true
      case _: st.DecimalType | _: st.StringType => true
      case _ => false
    }
  }

  private def copyValue(v: Any): Any = v match {
    case s: UTF8String => s.copy()
    case b: Array[Byte] => b.clone()
    case d: org.apache.spark.sql.types.Decimal => d.clone()
    case other => other
  }
}
