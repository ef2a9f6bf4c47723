package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{
  BinaryType,
  BooleanType,
  ByteType,
  DataType,
  DateType,
  DecimalType,
  IntegerType,
  LongType,
  ShortType,
  StringType,
  TimestampNTZType,
  TimestampType
}

/** The bytes a local lookup file keys a primary key by ([[LookupLevels]]). Two keys are equal exactly
 *  when their bytes are. When every key column has a type listed below (`orderPreserving`), the bytes
 *  also sort, as unsigned bytes, in the table's key order: the rows of a data file, which lie in key
 *  order, then go into a sort lookup file as they are read, with no sort, and the lookups of a
 *  compaction, which come in key order, walk each lookup file forward block by block. Key columns
 *  are NOT NULL, so no column needs a null marker.
 *  {{{
 *  boolean                     1 byte: 0 or 1
 *  tinyint, smallint, int,     two's complement, big-endian, sign bit flipped
 *    bigint, date, timestamp     (1, 2, 4, 8, 4, 8 bytes)
 *  decimal(p <= 18)            the unscaled value as bigint
 *  string, binary              last column: the bytes as they are; other columns: each 0x00 as
 *                              0x00 0xff, then 0x00 0x00 (so no key's bytes are a prefix of another's)
 *  }}}
 *  Other key types (floating point, wider decimals) key by Spark's UnsafeRow bytes of the key, which
 *  are equal exactly when the keys are, in no useful order: a sort lookup file sorts them first. */
final class LookupKeyEncoding(keyTypes: Seq[DataType]) extends Serializable {

  val orderPreserving: Boolean = keyTypes.forall(LookupKeyEncoding.ordered)

  @transient private lazy val unsafe = UnsafeProjection.create(keyTypes.toArray)
  private val widths: Array[Int] = keyTypes.map(LookupKeyEncoding.fixedWidth).toArray
  private val fixed = widths.forall(_ > 0)
  private val last = keyTypes.size - 1

  /** The key's bytes, in an array of their own. */
  def encode(key: InternalRow): Array[Byte] =
    if (!orderPreserving) unsafe(key).copy().getBytes
    else {
      // a variable-length column's bytes are taken once, sized, then copied in
      val variable = if (fixed) null else new Array[Array[Byte]](widths.length)
      var size = 0
      var i = 0
      while (i <= last) {
        size += (if (widths(i) > 0) widths(i)
                 else {
                   variable(i) = bytesAt(key, i)
                   encodedLength(variable(i), i == last)
                 })
        i += 1
      }
      val out = new Array[Byte](size)
      var at = 0
      i = 0
      while (i <= last) {
        at = if (widths(i) > 0) putFixed(key, i, out, at) else putVariable(variable(i), i == last, out, at)
        i += 1
      }
      out
    }

  private def bytesAt(key: InternalRow, i: Int): Array[Byte] = keyTypes(i) match {
    case StringType => key.getUTF8String(i).getBytes
    case _ => key.getBinary(i)
  }

  private def encodedLength(b: Array[Byte], isLast: Boolean): Int =
    if (isLast) b.length
    else {
      var zeros = 0
      b.foreach(x => if (x == 0) zeros += 1)
      b.length + zeros + 2
    }

  private def putFixed(key: InternalRow, i: Int, out: Array[Byte], at: Int): Int = keyTypes(i) match {
    case BooleanType => out(at) = if (key.getBoolean(i)) 1 else 0; at + 1
    case ByteType => out(at) = (key.getByte(i) ^ 0x80).toByte; at + 1
    case ShortType => bigEndian(key.getShort(i).toLong ^ (1L << 15), 2, out, at)
    case IntegerType | DateType => bigEndian(key.getInt(i).toLong ^ (1L << 31), 4, out, at)
    case LongType | TimestampType | TimestampNTZType => bigEndian(key.getLong(i) ^ Long.MinValue, 8, out, at)
    case d: DecimalType =>
      bigEndian(key.getDecimal(i, d.precision, d.scale).toUnscaledLong ^ Long.MinValue, 8, out, at)
    case t => throw new IllegalStateException(s"no fixed-width key bytes for $t")
  }

  private def putVariable(b: Array[Byte], isLast: Boolean, out: Array[Byte], at: Int): Int =
    if (isLast) {
      System.arraycopy(b, 0, out, at, b.length)
      at + b.length
    } else {
      var o = at
      b.foreach { x =>
        out(o) = x
        o += 1
        if (x == 0) { out(o) = 0xff.toByte; o += 1 }
      }
      out(o) = 0
      out(o + 1) = 0
      o + 2
    }

  private def bigEndian(v: Long, bytes: Int, out: Array[Byte], at: Int): Int = {
    var j = 0
    while (j < bytes) {
      out(at + j) = (v >>> (8 * (bytes - 1 - j))).toByte
      j += 1
    }
    at + bytes
  }
}

object LookupKeyEncoding {

  /** Largest decimal precision whose unscaled value is a bigint. */
  private val MaxLongDecimalDigits = 18

  private def ordered(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | DateType | LongType | TimestampType | TimestampNTZType => true
    case d: DecimalType => d.precision <= MaxLongDecimalDigits
    case StringType | BinaryType => true
    case _ => false
  }

  /** Bytes of a column of type `t`, 0 for variable-length types. */
  private def fixedWidth(t: DataType): Int = t match {
    case BooleanType | ByteType => 1
    case ShortType => 2
    case IntegerType | DateType => 4
    case LongType | TimestampType | TimestampNTZType | _: DecimalType => 8
    case _ => 0
  }
}
