package lamina.format

import lamina.types.DataType
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

/** The content of Paimon's SimpleStats record (`_MIN_VALUES`, `_MAX_VALUES`, `_NULL_COUNTS` in manifest
 *  and manifest-list Avro files): two serialized BinaryRows (see [[BinaryRowCodec.serialize]]) and one
 *  nullable count per column; `nullCounts` itself is null when the record holds none. A null field in
 *  the min or max row means "no bound known". */
final case class SimpleStats(minValues: Array[Byte], maxValues: Array[Byte], nullCounts: Array[java.lang.Long]) {
  override def equals(o: Any): Boolean = o match {
    case s: SimpleStats =>
      java.util.Arrays.equals(minValues, s.minValues) && java.util.Arrays.equals(maxValues, s.maxValues) &&
      java.util.Arrays.equals(nullCounts.asInstanceOf[Array[AnyRef]], s.nullCounts.asInstanceOf[Array[AnyRef]])
    case _ => false
  }
  override def hashCode(): Int =
    java.util.Arrays.hashCode(minValues) * 31 * 31 + java.util.Arrays.hashCode(maxValues) * 31 +
      java.util.Arrays.hashCode(nullCounts.asInstanceOf[Array[AnyRef]])
  override def toString: String =
    s"SimpleStats(min=${HexString(minValues)}, max=${HexString(maxValues)}, nullCounts=${Option(nullCounts).map(_.mkString("[", ", ", "]")).orNull})"
}

/** Decoded stats: rows of Spark internal values (null = unknown bound) and the null counts. */
final case class DecodedStats(minValues: InternalRow, maxValues: InternalRow, nullCounts: Array[java.lang.Long])

object SimpleStatsCodec {

  /** Paimon's EMPTY_STATS: arity-0 rows and no counts, used when a file keeps no stats. */
  val Empty: SimpleStats = {
    val empty = BinaryRowCodec.serialize(new GenericInternalRow(0), Seq.empty)
    SimpleStats(empty, empty.clone(), Array.empty)
  }

  def encode(minValues: InternalRow, maxValues: InternalRow, nullCounts: Array[java.lang.Long],
      types: Seq[DataType]): SimpleStats = {
    if (nullCounts != null && nullCounts.length != types.length)
      throw new IllegalArgumentException(s"${nullCounts.length} null counts for ${types.length} stats columns")
    SimpleStats(BinaryRowCodec.serialize(minValues, types), BinaryRowCodec.serialize(maxValues, types), nullCounts)
  }

  /** Validates both rows against `types` and the count array's length; malformed content raises
   *  [[MalformedRowException]] or IllegalArgumentException naming which part is wrong. */
  def decode(stats: SimpleStats, types: Seq[DataType]): DecodedStats = {
    def row(bytes: Array[Byte], what: String): InternalRow =
      try BinaryRowCodec.deserialize(bytes, types)
      catch {
        case e: MalformedRowException =>
          throw new MalformedRowException(e.offset, e.expected, e.actual, s"in stats $what")
      }
    val counts = stats.nullCounts
    if (counts != null && counts.length != types.length)
      throw new IllegalArgumentException(s"Stats have ${counts.length} null counts for ${types.length} columns")
    if (counts != null) counts.zipWithIndex.foreach { case (c, i) =>
      if (c != null && c < 0) throw new IllegalArgumentException(s"Stats null count of column $i is negative: $c")
    }
    DecodedStats(row(stats.minValues, "min values"), row(stats.maxValues, "max values"), counts)
  }
}

private[format] object HexString {
  def apply(b: Array[Byte]): String = if (b == null) "null" else b.map(x => f"${x & 0xff}%02x").mkString
}
