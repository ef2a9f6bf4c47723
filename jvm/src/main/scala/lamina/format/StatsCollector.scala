package lamina.format

import lamina.types._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

/** Accumulates Paimon SimpleStats (min, max, null count per column) over Spark rows, one data file at
 *  a time. Column j of the stats is field `ordinals(j)` of each row, read as `types(j)`. Columns where
 *  `perRow` is false are not read from rows: their stats come whole from elsewhere ([[absorb]], e.g.
 *  the footer of the Parquet file written, [[ParquetFooterStats]]).
 *
 *  Bounds follow Paimon: exact min and max in [[PaimonOrdering]], then the column's [[StatsMode]]
 *  applied to the result (as Paimon does to the footer stats of Parquet and ORC files). Binary, nested,
 *  VARIANT and BLOB columns get null bounds because Paimon keeps none for them; their nulls are still
 *  counted. Values are copied, so rows may be reused buffers. Not thread-safe.
 */
final class StatsCollector(types: Seq[DataType], ordinals: Array[Int], modes: Seq[StatsMode], perRow: Array[Boolean]) {
  def this(types: Seq[DataType], ordinals: Array[Int], modes: Seq[StatsMode]) =
    this(types, ordinals, modes, Array.fill(types.size)(true))
  def this(types: Seq[DataType], ordinals: Array[Int]) = this(types, ordinals, Seq.fill(types.size)(StatsMode.Default))

  private val ts = types.toIndexedSeq
  private val ms = modes.toIndexedSeq
  require(ordinals.length == ts.length, s"${ordinals.length} ordinals but ${ts.length} types")
  require(ms.length == ts.length, s"${ms.length} stats modes but ${ts.length} types")
  require(perRow.length == ts.length, s"${perRow.length} per-row flags but ${ts.length} types")

  private val n = ts.length
  private val bounded = Array.tabulate(n)(j =>
    hasBounds(ts(j)) && (ms(j) match {
      case StatsMode.NoStats | StatsMode.Counts => false
      case _ => true
    }))
  private val mins = new Array[Any](n)
  private val maxs = new Array[Any](n)
  private val nulls = new Array[Long](n)
  private var rows = 0L

  def rowCount: Long = rows

  import StatsCollector.{IntKind, LongKind, StringKind}

  // per column, how update reads it: longs and ints into primitive bounds (no boxing per row),
  // strings compared in place, other types through PaimonOrdering
  private val kinds = Array.tabulate(n)(j =>
    ts(j) match {
      case _: BigIntType | _: TimestampType | _: LocalZonedTimestampType => LongKind
      case _: IntType | _: DateType | _: TimeType => IntKind
      case _: CharType | _: VarCharType => StringKind
      case _ => 0
    })
  private val seen = new Array[Boolean](n)
  // primitive bounds of long and int columns; for strings, the prefixes of the bounds (see boundString)
  private val longMins = new Array[Long](n)
  private val longMaxs = new Array[Long](n)

  /** The columns read from rows. */
  private val rowColumns: Array[Int] = (0 until n).filter(perRow(_)).toArray

  /** Null counts of absorbed columns: null while unknown. */
  private val absorbedNulls = new Array[java.lang.Long](n)

  def update(row: InternalRow): Unit = {
    var c = 0
    while (c < rowColumns.length) {
      val j = rowColumns(c)
      val pos = ordinals(j)
      if (row.isNullAt(pos)) nulls(j) += 1
      else if (bounded(j)) kinds(j) match {
        case LongKind => bound(j, row.getLong(pos))
        case IntKind => bound(j, row.getInt(pos).toLong)
        case StringKind => boundString(j, row.getUTF8String(pos))
        case _ =>
          val t = ts(j)
          val v = read(row, pos, t)
          if (mins(j) == null || PaimonOrdering.compare(t, v, mins(j)) < 0) mins(j) = copy(v)
          if (maxs(j) == null || PaimonOrdering.compare(t, v, maxs(j)) > 0) maxs(j) = copy(v)
      }
      c += 1
    }
    rows += 1
  }

  /** The stats of column j (not read per row) over the whole file: bounds in Spark's internal form
   *  (Long, Int, Short, Byte or UTF8String as the column's type reads), null where unknown, and the
   *  number of nulls, null where unknown. */
  def absorb(j: Int, min: Any, max: Any, nullCount: java.lang.Long): Unit = {
    require(!perRow(j), s"stats column $j is collected per row")
    absorbedNulls(j) = nullCount
    if (bounded(j) && min != null && max != null) kinds(j) match {
      case LongKind | IntKind =>
        seen(j) = true
        longMins(j) = min.asInstanceOf[Number].longValue
        longMaxs(j) = max.asInstanceOf[Number].longValue
      case _ => mins(j) = min; maxs(j) = max
    }
  }

  /** A string against the bounds: first by its leading 8 bytes as an unsigned number (the order of
   *  binary comparison up to ties), so most rows cost no byte-by-byte comparison. */
  private def boundString(j: Int, v: UTF8String): Unit = {
    val p = v.getPrefix
    if (mins(j) == null) {
      mins(j) = v.clone(); maxs(j) = mins(j); longMins(j) = p; longMaxs(j) = p
    } else {
      val toMin = java.lang.Long.compareUnsigned(p, longMins(j))
      if (toMin < 0 || (toMin == 0 && v.binaryCompare(mins(j).asInstanceOf[UTF8String]) < 0)) {
        mins(j) = v.clone(); longMins(j) = p
      }
      val toMax = java.lang.Long.compareUnsigned(p, longMaxs(j))
      if (toMax > 0 || (toMax == 0 && v.binaryCompare(maxs(j).asInstanceOf[UTF8String]) > 0)) {
        maxs(j) = v.clone(); longMaxs(j) = p
      }
    }
  }

  private def bound(j: Int, v: Long): Unit =
    if (!seen(j)) { seen(j) = true; longMins(j) = v; longMaxs(j) = v }
    else {
      if (v < longMins(j)) longMins(j) = v
      if (v > longMaxs(j)) longMaxs(j) = v
    }

  /** The bounds of column j as the generic path keeps them (boxed Long or Int), null before any value. */
  private def lower(j: Int): Any = kinds(j) match {
    case LongKind => if (seen(j)) longMins(j) else null
    case IntKind => if (seen(j)) longMins(j).toInt else null
    case _ => mins(j)
  }

  private def upper(j: Int): Any = kinds(j) match {
    case LongKind => if (seen(j)) longMaxs(j) else null
    case IntKind => if (seen(j)) longMaxs(j).toInt else null
    case _ => maxs(j)
  }

  /** The stats so far, with each column's mode applied. */
  def result(): DecodedStats = {
    val min = new Array[Any](n)
    val max = new Array[Any](n)
    val counts = new Array[java.lang.Long](n)
    for (j <- 0 until n) {
      val nullCount: java.lang.Long = if (perRow(j)) nulls(j) else absorbedNulls(j)
      ms(j) match {
        case StatsMode.NoStats =>
        case StatsMode.Counts => counts(j) = nullCount
        case StatsMode.Full => counts(j) = nullCount; min(j) = lower(j); max(j) = upper(j)
        case StatsMode.Truncate(len) =>
          counts(j) = nullCount
          (lower(j), upper(j)) match {
            case (lo: UTF8String, hi: UTF8String) =>
              StatsCollector.truncateMax(hi, len).foreach { m =>
                min(j) = StatsCollector.truncateMin(lo, len)
                max(j) = m
              }
            case (lo, hi) => min(j) = lo; max(j) = hi
          }
      }
    }
    DecodedStats(new GenericInternalRow(min), new GenericInternalRow(max), counts)
  }

  /** [[result]] in the form stored in manifests. */
  def resultSerialized(): SimpleStats = {
    val r = result()
    SimpleStatsCodec.encode(r.minValues, r.maxValues, r.nullCounts, ts)
  }

  private def hasBounds(t: DataType): Boolean = t match {
    case _: BinaryType | _: VarBinaryType => false
    case other => PaimonOrdering.isOrdered(other)
  }

  private def read(row: InternalRow, pos: Int, t: DataType): Any = t match {
    case _: BooleanType => row.getBoolean(pos)
    case _: TinyIntType => row.getByte(pos)
    case _: SmallIntType => row.getShort(pos)
    case _: IntType | _: DateType | _: TimeType => row.getInt(pos)
    case _: BigIntType | _: TimestampType | _: LocalZonedTimestampType => row.getLong(pos)
    case _: FloatType => row.getFloat(pos)
    case _: DoubleType => row.getDouble(pos)
    case d: DecimalType => row.getDecimal(pos, d.precision, d.scale)
    case _: CharType | _: VarCharType => row.getUTF8String(pos)
    case other => throw new IllegalStateException(s"no bounds for ${other.asSQLString}")
  }

  private def copy(v: Any): Any = v match {
    case s: UTF8String => s.clone()
    case d: Decimal => d.clone()
    case other => other
  }
}

object StatsCollector {
  private final val LongKind = 1
  private final val IntKind = 2
  private final val StringKind = 3

  /** The first `length` code points: a lower bound of `s`. */
  def truncateMin(s: UTF8String, length: Int): UTF8String = s.substring(0, length)

  /** An upper bound of `s` of at most `length` code points: `s` itself when it is short enough, else
   *  its prefix with the last code point that can be incremented incremented (and the rest dropped);
   *  None when no code point can be (Paimon then keeps no bounds for the column). */
  def truncateMax(s: UTF8String, length: Int): Option[UTF8String] = {
    val truncated = s.substring(0, length)
    if (truncated.numBytes() == s.numBytes()) Some(s)
    else {
      val sb = new java.lang.StringBuilder(truncated.toString)
      var i = length - 1
      while (i >= 0) {
        val at = sb.offsetByCodePoints(0, i)
        val next = sb.codePointAt(at) + 1
        if (next != 0 && Character.isValidCodePoint(next)) {
          sb.setLength(at)
          sb.appendCodePoint(next)
          return Some(UTF8String.fromString(sb.toString))
        }
        i -= 1
      }
      None
    }
  }
}
