package lamina.table.sort

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import lamina.types._

/** Order-preserving byte forms of one column's values: bytes that compare unsigned, byte by byte, as
 *  the values compare in Paimon's natural order ([[lamina.format.PaimonOrdering]]).
 *
 *  [[exact]] keeps the whole order (a sort key): a marker byte (0 NULL, 1 a value), then 8 bytes for
 *  booleans, integers, dates, times and timestamps (two's complement with the sign bit flipped),
 *  floats and doubles (as doubles: the bits, all flipped when negative, else the sign bit flipped,
 *  so -0.0 < 0.0 and NaN is last), decimals (their unscaled value in 8 bytes up to 18 digits, else in
 *  16, sign bit flipped: a column has one scale); strings and binaries escaped, each 0x00 written as
 *  0x00 0xFF, then 0x00 0x00, so a prefix sorts before its extensions.
 *
 *  [[fixed]] is a fixed-width form for space-filling curves: the same bytes without the marker, cut
 *  or zero-padded to `width` (strings and binaries: their first `width` bytes; decimals of more than
 *  18 digits: the top 8 of their 16 bytes). NULL is all zeros, sorting first. Order is kept but not
 *  always strictly (two strings that share `width` bytes tie). */
object OrderedBytes {

  /** The types a value of which has a natural order (nested, VARIANT and BLOB columns do not). */
  def supports(t: DataType): Boolean = t match {
    case _: ArrayType | _: MapType | _: RowType | _: MultisetType | _: VariantType | _: BlobType => false
    case _ => true
  }

  def exact(row: InternalRow, ordinal: Int, t: DataType, out: java.io.ByteArrayOutputStream): Unit =
    if (row.isNullAt(ordinal)) out.write(0)
    else {
      out.write(1)
      t match {
        case _: CharType | _: VarCharType => escaped(row.getUTF8String(ordinal).getBytes, out)
        case _: BinaryType | _: VarBinaryType => escaped(row.getBinary(ordinal), out)
        case _ => out.write(numeric(row, ordinal, t))
      }
    }

  /** `width` bytes for the value at `ordinal` (zeros for NULL). */
  def fixed(row: InternalRow, ordinal: Int, t: DataType, width: Int): Array[Byte] = {
    val out = new Array[Byte](width)
    if (!row.isNullAt(ordinal)) {
      val bytes = t match {
        case _: CharType | _: VarCharType => row.getUTF8String(ordinal).getBytes
        case _: BinaryType | _: VarBinaryType => row.getBinary(ordinal)
        case _ => numeric(row, ordinal, t)
      }
      System.arraycopy(bytes, 0, out, 0, math.min(width, bytes.length))
    }
    out
  }

  /** The first 8 bytes of [[fixed]] as an unsigned number (a coordinate of a Hilbert curve). */
  def coordinate(row: InternalRow, ordinal: Int, t: DataType): Long =
    java.nio.ByteBuffer.wrap(fixed(row, ordinal, t, 8)).getLong

  private def numeric(row: InternalRow, ordinal: Int, t: DataType): Array[Byte] = t match {
    case _: BooleanType => long(if (row.getBoolean(ordinal)) 1L else 0L)
    case _: TinyIntType => long(row.getByte(ordinal).toLong)
    case _: SmallIntType => long(row.getShort(ordinal).toLong)
    case _: IntType | _: DateType | _: TimeType => long(row.getInt(ordinal).toLong)
    case _: BigIntType | _: TimestampType | _: LocalZonedTimestampType => long(row.getLong(ordinal))
    case _: FloatType => double(row.getFloat(ordinal).toDouble)
    case _: DoubleType => double(row.getDouble(ordinal))
    case d: DecimalType => decimal(row.getDecimal(ordinal, d.precision, d.scale), d.precision)
    case other => throw new UnsupportedOperationException(s"Type ${other.asSQLString} has no natural order")
  }

  private[sort] def long(v: Long): Array[Byte] = java.nio.ByteBuffer.allocate(8).putLong(v ^ Long.MinValue).array()

  private[sort] def double(v: Double): Array[Byte] = {
    val bits = java.lang.Double.doubleToLongBits(v)
    java.nio.ByteBuffer.allocate(8).putLong(if (bits < 0) ~bits else bits ^ Long.MinValue).array()
  }

  private def decimal(d: Decimal, precision: Int): Array[Byte] =
    if (precision <= Decimal.MAX_LONG_DIGITS) long(d.toUnscaledLong)
    else {
      val unscaled = d.toJavaBigDecimal.unscaledValue.toByteArray // big-endian two's complement
      val out = Array.fill[Byte](16)(if (unscaled(0) < 0) -1 else 0)
      System.arraycopy(unscaled, 0, out, 16 - unscaled.length, unscaled.length)
      out(0) = (out(0) ^ 0x80).toByte
      out
    }

  private def escaped(bytes: Array[Byte], out: java.io.ByteArrayOutputStream): Unit = {
    bytes.foreach { b => out.write(b); if (b == 0) out.write(0xff) }
    out.write(0); out.write(0)
  }

  /** Unsigned lexicographic order of byte arrays, shorter first on a common prefix. */
  val Unsigned: Ordering[Array[Byte]] = UnsignedBytes

  private object UnsignedBytes extends Ordering[Array[Byte]] {
    override def compare(a: Array[Byte], b: Array[Byte]): Int = java.util.Arrays.compareUnsigned(a, b)
  }

  /** Exposed for tests: a string's escaped form. */
  private[sort] def exactOf(s: UTF8String): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream(); escaped(s.getBytes, out); out.toByteArray
  }
}
