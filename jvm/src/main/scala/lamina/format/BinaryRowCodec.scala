package lamina.format

import java.math.{BigInteger, BigDecimal => JBigDecimal}
import java.nio.{ByteBuffer, ByteOrder}

import lamina.types._
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

/** Paimon's BinaryRow, the form of partition values, primary-key bounds and stats rows in manifests,
 *  and the input of the bucket hash. All multi-byte values are little-endian.
 *
 *  {{{
 *  +--------------------------+---------------------------+-------------------------------+
 *  | header + null bits       | fixed part                | variable part                 |
 *  | W = ((n + 71) / 64) * 8  | 8 bytes per field (n * 8) | 8-byte aligned chunks          |
 *  +--------------------------+---------------------------+-------------------------------+
 *  byte 0: row kind (0 +I, 1 -U, 2 +U, 3 -D); bit (i + 8) of the header (byte (i+8)/8, bit (i+8)%8,
 *  LSB first) is set when field i is null; a null field's slot is zero (but see null wide fields below).
 *  }}}
 *
 *  Fixed-part slot of field i, at W + 8 * i:
 *  - BOOLEAN, TINYINT: 1 byte; SMALLINT: 2; INT, DATE (days), TIME (millis), FLOAT: 4; BIGINT,
 *    DOUBLE: 8 (NaN normalized to the canonical NaN, as Paimon's writer does);
 *  - DECIMAL(p <= 18): the unscaled long;
 *  - TIMESTAMP(p <= 3), both kinds: epoch milliseconds;
 *  - strings and binaries of at most 7 bytes: the bytes inline in slot bytes 0..6, slot byte 7 =
 *    0x80 | length;
 *  - longer strings and binaries: `offset << 32 | length`, the bytes at `offset` (from the row start)
 *    zero-padded to a multiple of 8;
 *  - DECIMAL(p > 18): `offset << 32 | length`, the unscaled value as big-endian two's complement
 *    (`BigInteger.toByteArray`) in a zeroed 16-byte chunk at `offset`;
 *  - TIMESTAMP(p > 3): `offset << 32 | nanoOfMillisecond`, the epoch millis (8 bytes) at `offset`.
 *
 *  Spark values: strings are UTF8String, decimals Decimal, dates Int days, timestamps Long
 *  microseconds (both kinds), TIME Int milliseconds. Non-null nested ARRAY/MAP/ROW/MULTISET, VARIANT
 *  and BLOB values raise UnsupportedOperationException: partitions and keys hold atomic types only, and
 *  stats rows hold nulls for such columns (so null values of those types are accepted).
 *
 *  A null field has its null bit set and a zero slot, except that Paimon's Java writers (the code
 *  generated projections that build partition and key rows) keep a zeroed variable-part chunk for a null
 *  DECIMAL(p > 18) (16 bytes) or TIMESTAMP(p > 3) (8 bytes) and point the slot at it (`offset << 32`);
 *  pypaimon does not. Both decode alike, but bytes and hashes differ, so encoding defaults to the Java
 *  layout ([[NullLayout.Reserved]]) that partitions and buckets of Java-written tables use.
 *
 *  The serialized form used in manifests (Paimon's `SerializationUtils.serializeBinaryRow`) prefixes
 *  the row bytes with the arity as a 4-byte big-endian int.
 */
object BinaryRowCodec {
  val HeaderBits = 8

  /** Longest string or binary stored inline in its fixed-part slot. */
  val MaxInlineBytes = 7
  val ArityPrefixBytes = 4

  def nullBitsSizeInBytes(arity: Int): Int = ((arity + 63 + HeaderBits) / 64) * 8

  def fixedPartSize(arity: Int): Int = nullBitsSizeInBytes(arity) + 8 * arity

  private def roundToWord(n: Int): Int = (n + 7) & ~7

  // ---------------------------------------------------------------------------------------- encode

  /** Raw BinaryRow bytes of `row` (row kind +I), reading field i of `row` as `types(i)`, with null
   *  wide fields laid out as Paimon's Java writers do ([[NullLayout.Reserved]]). */
  def encode(row: InternalRow, types: Seq[DataType]): Array[Byte] = encode(row, types, NullLayout.Reserved)

  def encode(row: InternalRow, types: Seq[DataType], nullLayout: NullLayout): Array[Byte] = {
    if (row.numFields < types.length)
      throw new IllegalArgumentException(s"Row has ${row.numFields} fields but ${types.length} types were given")
    encode(row, Array.tabulate(types.length)(identity), types, nullLayout)
  }

  /** Raw BinaryRow bytes of the projection of `row` onto `ordinals`: field i of the result is field
   *  `ordinals(i)` of `row`, read as `types(i)`. */
  def encode(row: InternalRow, ordinals: Array[Int], types: Seq[DataType],
      nullLayout: NullLayout = NullLayout.Reserved): Array[Byte] = {
    val ts = types.toIndexedSeq
    val arity = ts.length
    require(ordinals.length == arity, s"${ordinals.length} ordinals but $arity types")
    val reserveNulls = nullLayout == NullLayout.Reserved
    val nullBits = nullBitsSizeInBytes(arity)
    val fixed = nullBits + 8 * arity
    val prepared = new Array[Any](arity)
    var varSize = 0
    var i = 0
    while (i < arity) {
      if (!row.isNullAt(ordinals(i))) {
        val v = prepare(row, ordinals(i), ts(i))
        prepared(i) = v
        varSize += variableBytes(ts(i), v)
      } else if (reserveNulls) varSize += reservedForNull(ts(i))
      i += 1
    }
    val out = new Array[Byte](fixed + varSize)
    val buf = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN)
    var cursor = fixed
    i = 0
    while (i < arity) {
      val slot = nullBits + 8 * i
      val v = prepared(i)
      if (v == null) {
        val bit = i + HeaderBits
        out(bit >> 3) = (out(bit >> 3) | (1 << (bit & 7))).toByte
        val reserved = if (reserveNulls) reservedForNull(ts(i)) else 0
        if (reserved > 0) {
          buf.putLong(slot, cursor.toLong << 32)
          cursor += reserved
        }
      } else ts(i) match {
        case _: BooleanType => out(slot) = if (v.asInstanceOf[Boolean]) 1 else 0
        case _: TinyIntType => out(slot) = v.asInstanceOf[Byte]
        case _: SmallIntType => buf.putShort(slot, v.asInstanceOf[Short])
        case _: IntType | _: DateType | _: TimeType => buf.putInt(slot, v.asInstanceOf[Int])
        case _: BigIntType => buf.putLong(slot, v.asInstanceOf[Long])
        case _: FloatType => buf.putFloat(slot, v.asInstanceOf[Float])
        case _: DoubleType => buf.putDouble(slot, v.asInstanceOf[Double])
        case d: DecimalType if d.isCompact => buf.putLong(slot, v.asInstanceOf[Long])
        case _: DecimalType =>
          val bytes = v.asInstanceOf[Array[Byte]]
          System.arraycopy(bytes, 0, out, cursor, bytes.length)
          buf.putLong(slot, (cursor.toLong << 32) | bytes.length)
          cursor += 16
        case t if isTimestamp(t) =>
          val micros = v.asInstanceOf[Long]
          val millis = Math.floorDiv(micros, 1000L)
          if (timestampPrecision(t) <= TimestampType.MaxCompactPrecision) buf.putLong(slot, millis)
          else {
            val nanoOfMilli = Math.floorMod(micros, 1000L) * 1000L
            buf.putLong(cursor, millis)
            buf.putLong(slot, (cursor.toLong << 32) | nanoOfMilli)
            cursor += 8
          }
        case _ => // string or binary
          val bytes = v.asInstanceOf[Array[Byte]]
          if (bytes.length <= MaxInlineBytes) {
            System.arraycopy(bytes, 0, out, slot, bytes.length)
            out(slot + 7) = (0x80 | bytes.length).toByte
          } else {
            System.arraycopy(bytes, 0, out, cursor, bytes.length)
            buf.putLong(slot, (cursor.toLong << 32) | bytes.length)
            cursor += roundToWord(bytes.length)
          }
      }
      i += 1
    }
    out
  }

  /** Widths in the fixed part of fields whose BinaryRow form is a primitive in its slot (boolean and
   *  TINYINT 1, SMALLINT 2, INT/DATE/TIME 4, BIGINT 8), or None when some field needs [[encode]]. */
  def fixedWidths(types: Seq[DataType]): Option[Array[Int]] = {
    val widths = types.map {
      case _: BooleanType | _: TinyIntType => 1
      case _: SmallIntType => 2
      case _: IntType | _: DateType | _: TimeType => 4
      case _: BigIntType => 8
      case _ => 0
    }.toArray
    if (widths.forall(_ > 0)) Some(widths) else None
  }

  /** The bytes [[encode]] gives (row kind +I) for fields of [[fixedWidths]], written into `out`
   *  (`nullBitsSizeInBytes(arity) + 8 * arity` bytes, reused from row to row). */
  def encodeFixedInto(row: InternalRow, ordinals: Array[Int], types: IndexedSeq[DataType], widths: Array[Int],
      out: Array[Byte]): Unit = {
    java.util.Arrays.fill(out, 0.toByte)
    val nullBits = nullBitsSizeInBytes(widths.length)
    var i = 0
    while (i < widths.length) {
      val pos = ordinals(i)
      val slot = nullBits + 8 * i
      if (row.isNullAt(pos)) {
        val bit = i + HeaderBits
        out(bit >> 3) = (out(bit >> 3) | (1 << (bit & 7))).toByte
      } else widths(i) match {
        case 1 => out(slot) = types(i) match {
            case _: BooleanType => if (row.getBoolean(pos)) 1 else 0
            case _ => row.getByte(pos)
          }
        case 2 => writeLittleEndian(out, slot, row.getShort(pos).toLong, 2)
        case 4 => writeLittleEndian(out, slot, row.getInt(pos).toLong, 4)
        case _ => writeLittleEndian(out, slot, row.getLong(pos), 8)
      }
      i += 1
    }
  }

  /** Largest arity [[hashFixed]] takes: its null bits fit the two words of an 8-byte header. */
  val MaxHashFixedArity: Int = 64 - HeaderBits

  /** `hash` of the bytes [[encodeFixedInto]] writes, computed from the field values word by word
   *  without writing them: the null-bit words, then two words (low, high) per field slot. At most
   *  [[MaxHashFixedArity]] fields. */
  def hashFixed(row: InternalRow, ordinals: Array[Int], types: IndexedSeq[DataType], widths: Array[Int]): Int = {
    val arity = widths.length
    require(arity <= MaxHashFixedArity, s"hashFixed takes at most $MaxHashFixedArity fields, got $arity")
    var nullBits = 0L
    var i = 0
    while (i < arity) {
      if (row.isNullAt(ordinals(i))) nullBits |= 1L << (i + HeaderBits)
      i += 1
    }
    var h = MurmurHash.mixWord(MurmurHash.mixWord(MurmurHash.DefaultSeed, nullBits.toInt), (nullBits >>> 32).toInt)
    i = 0
    while (i < arity) {
      val pos = ordinals(i)
      val slot: Long =
        if ((nullBits & (1L << (i + HeaderBits))) != 0) 0L
        else widths(i) match {
          case 1 => types(i) match {
              case _: BooleanType => if (row.getBoolean(pos)) 1L else 0L
              case _ => row.getByte(pos) & 0xffL
            }
          case 2 => row.getShort(pos) & 0xffffL
          case 4 => row.getInt(pos) & 0xffffffffL
          case _ => row.getLong(pos)
        }
      h = MurmurHash.mixWord(MurmurHash.mixWord(h, slot.toInt), (slot >>> 32).toInt)
      i += 1
    }
    MurmurHash.finish(h, 8 + 8 * arity)
  }

  /** `hash` of the one-field row holding a non-null BIGINT `v` (or, as its slot, an INT or DATE
   *  widened without sign: `v & 0xffffffffL`). */
  def hashOfSlot(v: Long): Int =
    MurmurHash.finish(MurmurHash.mixWord(MurmurHash.mixWord(NoNullsHeaderState, v.toInt), (v >>> 32).toInt), 16)

  /** The hash state after the 8-byte header of a row of at most [[MaxHashFixedArity]] fields, none null. */
  private val NoNullsHeaderState: Int = MurmurHash.mixWord(MurmurHash.mixWord(MurmurHash.DefaultSeed, 0), 0)

  private def writeLittleEndian(out: Array[Byte], at: Int, v: Long, bytes: Int): Unit = {
    var k = 0
    while (k < bytes) { out(at + k) = (v >>> (8 * k)).toByte; k += 1 }
  }

  /** Field i of `row` in the form `encode` writes: primitives boxed, decimals as unscaled Long or
   *  big-endian bytes, timestamps as Long micros, strings and binaries as byte arrays. */
  private def prepare(row: InternalRow, i: Int, t: DataType): Any = t match {
    case _: BooleanType => row.getBoolean(i)
    case _: TinyIntType => row.getByte(i)
    case _: SmallIntType => row.getShort(i)
    case _: IntType | _: DateType | _: TimeType => row.getInt(i)
    case _: BigIntType => row.getLong(i)
    case _: FloatType => val f = row.getFloat(i); if (java.lang.Float.isNaN(f)) Float.NaN else f
    case _: DoubleType => val d = row.getDouble(i); if (java.lang.Double.isNaN(d)) Double.NaN else d
    case d: DecimalType =>
      val v = rescale(row.getDecimal(i, d.precision, d.scale), d, i)
      if (d.isCompact) v.toUnscaledLong else v.toJavaBigDecimal.unscaledValue.toByteArray
    case _: TimestampType | _: LocalZonedTimestampType => row.getLong(i)
    case _: CharType | _: VarCharType => row.getUTF8String(i).getBytes
    case _: BinaryType | _: VarBinaryType => row.getBinary(i)
    case other => unsupported(other)
  }

  private def variableBytes(t: DataType, v: Any): Int = t match {
    case d: DecimalType => if (d.isCompact) 0 else 16
    case _: TimestampType | _: LocalZonedTimestampType => if (timestampPrecision(t) <= 3) 0 else 8
    case _: CharType | _: VarCharType | _: BinaryType | _: VarBinaryType =>
      val n = v.asInstanceOf[Array[Byte]].length
      if (n <= MaxInlineBytes) 0 else roundToWord(n)
    case _ => 0
  }

  /** Zeroed variable-part bytes Paimon's Java writers reserve for a null field of type `t`. */
  private def reservedForNull(t: DataType): Int = t match {
    case d: DecimalType if !d.isCompact => 16
    case t: TimestampType if !t.isCompact => 8
    case t: LocalZonedTimestampType if !t.isCompact => 8
    case _ => 0
  }

  private def rescale(d: Decimal, t: DecimalType, pos: Int): Decimal =
    if (d.scale == t.scale && d.precision <= t.precision) d
    else {
      val c = d.clone()
      if (!c.changePrecision(t.precision, t.scale))
        throw new IllegalArgumentException(s"Decimal value $d at field $pos does not fit ${t.asSQLString}")
      c
    }

  private def isTimestamp(t: DataType): Boolean =
    t.isInstanceOf[TimestampType] || t.isInstanceOf[LocalZonedTimestampType]

  private def timestampPrecision(t: DataType): Int = t match {
    case TimestampType(p, _) => p
    case LocalZonedTimestampType(p, _) => p
    case _ => throw new IllegalStateException(s"not a timestamp: $t")
  }

  private def unsupported(t: DataType): Nothing =
    throw new UnsupportedOperationException(
      s"Type ${t.asSQLString} is not supported in binary rows (partition, key and stats rows hold atomic types only)")

  // ---------------------------------------------------------------------------------------- decode

  /** Decodes the BinaryRow in `bytes[offset, offset + length)` into a GenericInternalRow of Spark
   *  internal values. Validates the header, every offset and length against the row bounds, and
   *  raises [[MalformedRowException]] (offsets relative to `offset`) instead of returning a wrong row. */
  def decode(bytes: Array[Byte], offset: Int, length: Int, types: Seq[DataType]): InternalRow = {
    val ts = types.toIndexedSeq
    if (offset < 0 || length < 0 || offset.toLong + length > bytes.length)
      throw new IllegalArgumentException(
        s"Row range [$offset, ${offset.toLong + length}) is outside an array of ${bytes.length} bytes")
    val arity = ts.length
    val nullBits = nullBitsSizeInBytes(arity)
    val fixed = nullBits + 8 * arity
    if (length < fixed)
      throw new MalformedRowException(length, s"at least $fixed bytes for $arity fields", s"$length bytes", "row is truncated")
    val kind = bytes(offset)
    if (kind < 0 || kind > 3) throw new MalformedRowException(0, "row kind 0..3", s"$kind", "")
    val buf = ByteBuffer.wrap(bytes, offset, length).slice().order(ByteOrder.LITTLE_ENDIAN)
    val values = new Array[Any](arity)
    var i = 0
    while (i < arity) {
      val bit = i + HeaderBits
      val isNull = (buf.get(bit >> 3) & (1 << (bit & 7))) != 0
      if (!isNull) values(i) = readField(buf, nullBits + 8 * i, fixed, length, ts(i), i)
      i += 1
    }
    new GenericInternalRow(values)
  }

  private def readField(buf: ByteBuffer, slot: Int, fixed: Int, length: Int, t: DataType, pos: Int): Any = {

    /** Checks that `[start, start + size)` lies in the variable part. */
    def checkVar(start: Long, size: Long, what: String): Unit =
      if (start < fixed || start + size > length)
        throw new MalformedRowException(slot, s"$what of field $pos within bytes [$fixed, $length)",
          s"[$start, ${start + size})", "offset or length out of the row's variable part")
    t match {
      case _: BooleanType => buf.get(slot) != 0
      case _: TinyIntType => buf.get(slot)
      case _: SmallIntType => buf.getShort(slot)
      case _: IntType | _: DateType | _: TimeType => buf.getInt(slot)
      case _: BigIntType => buf.getLong(slot)
      case _: FloatType => buf.getFloat(slot)
      case _: DoubleType => buf.getDouble(slot)
      case d: DecimalType if d.isCompact =>
        val unscaled = buf.getLong(slot)
        checkDecimal(JBigDecimal.valueOf(unscaled, d.scale), d, slot, pos)
        Decimal(unscaled, d.precision, d.scale)
      case d: DecimalType =>
        val word = buf.getLong(slot)
        val start = word >>> 32
        val size = word & 0xffffffffL
        if (size < 1 || size > 16)
          throw new MalformedRowException(slot, s"decimal byte length 1..16 for field $pos", s"$size", "")
        checkVar(start, 16, "16-byte decimal chunk")
        val bytes = new Array[Byte](size.toInt)
        buf.get(start.toInt, bytes)
        val bd = new JBigDecimal(new BigInteger(bytes), d.scale)
        checkDecimal(bd, d, slot, pos)
        Decimal(bd, d.precision, d.scale)
      case _: TimestampType | _: LocalZonedTimestampType =>
        val word = buf.getLong(slot)
        if (timestampPrecision(t) <= TimestampType.MaxCompactPrecision) millisToMicros(word, 0, slot, pos)
        else {
          val start = word >>> 32
          val nanoOfMilli = word & 0xffffffffL
          if (nanoOfMilli >= 1000000L)
            throw new MalformedRowException(slot, s"nano-of-millisecond 0..999999 for field $pos", s"$nanoOfMilli", "")
          checkVar(start, 8, "timestamp millis")
          millisToMicros(buf.getLong(start.toInt), nanoOfMilli, slot, pos)
        }
      case _: CharType | _: VarCharType => UTF8String.fromBytes(readBytes(buf, slot, fixed, length, pos, checkVar))
      case _: BinaryType | _: VarBinaryType => readBytes(buf, slot, fixed, length, pos, checkVar)
      case other => unsupported(other)
    }
  }

  private def readBytes(buf: ByteBuffer, slot: Int, fixed: Int, length: Int, pos: Int,
      checkVar: (Long, Long, String) => Unit): Array[Byte] = {
    val mark = buf.get(slot + 7)
    if ((mark & 0x80) != 0) {
      val n = mark & 0x7f
      if (n > MaxInlineBytes)
        throw new MalformedRowException(slot + 7, s"inline length 0..$MaxInlineBytes for field $pos", s"$n", "")
      val out = new Array[Byte](n)
      buf.get(slot, out)
      out
    } else {
      val word = buf.getLong(slot)
      val start = word >>> 32
      val size = word & 0xffffffffL
      checkVar(start, size, "bytes")
      val out = new Array[Byte](size.toInt)
      buf.get(start.toInt, out)
      out
    }
  }

  private def checkDecimal(bd: JBigDecimal, d: DecimalType, slot: Int, pos: Int): Unit =
    if (bd.signum() != 0 && bd.precision() > d.precision)
      throw new MalformedRowException(slot, s"a value of at most ${d.precision} digits for field $pos",
        bd.toPlainString, "decimal exceeds its declared precision")

  private def millisToMicros(millis: Long, nanoOfMilli: Long, slot: Int, pos: Int): Long =
    try Math.addExact(Math.multiplyExact(millis, 1000L), nanoOfMilli / 1000L)
    catch {
      case _: ArithmeticException =>
        throw new MalformedRowException(slot, s"a timestamp representable in microseconds for field $pos",
          s"$millis ms", "")
    }

  // ------------------------------------------------------------------------- manifest serialization

  /** `encode` prefixed with the arity as a big-endian int: the bytes stored in manifests for
   *  `_PARTITION`, `_MIN_KEY`, `_MAX_KEY` and stats rows. */
  def serialize(row: InternalRow, types: Seq[DataType]): Array[Byte] = serialize(row, types, NullLayout.Reserved)

  def serialize(row: InternalRow, types: Seq[DataType], nullLayout: NullLayout): Array[Byte] = {
    val raw = encode(row, types, nullLayout)
    val out = new Array[Byte](ArityPrefixBytes + raw.length)
    ByteBuffer.wrap(out).putInt(types.length)
    System.arraycopy(raw, 0, out, ArityPrefixBytes, raw.length)
    out
  }

  /** Inverse of `serialize`. The arity prefix must match `types`; errors raise
   *  [[MalformedRowException]] with offsets into `bytes`. */
  def deserialize(bytes: Array[Byte], types: Seq[DataType]): InternalRow = {
    if (bytes == null) throw new IllegalArgumentException("Cannot deserialize a binary row from null")
    if (bytes.length < ArityPrefixBytes)
      throw new MalformedRowException(0, "a 4-byte arity prefix", s"${bytes.length} bytes", "serialized row is truncated")
    val arity = ByteBuffer.wrap(bytes).getInt(0)
    if (arity != types.length)
      throw new MalformedRowException(0, s"arity ${types.length}", s"arity $arity", "")
    try decode(bytes, ArityPrefixBytes, bytes.length - ArityPrefixBytes, types)
    catch {
      case e: MalformedRowException =>
        throw new MalformedRowException(e.offset + ArityPrefixBytes, e.expected, e.actual,
          "in serialized row")
    }
  }

  /** The arity prefix of a serialized row. */
  def serializedArity(bytes: Array[Byte]): Int = {
    if (bytes == null || bytes.length < ArityPrefixBytes)
      throw new MalformedRowException(0, "a 4-byte arity prefix", s"${Option(bytes).map(_.length).getOrElse(0)} bytes", "")
    ByteBuffer.wrap(bytes).getInt(0)
  }

  /** Paimon's `BinaryRow.hashCode`: [[MurmurHash.hashBytesByWords]] over the raw row bytes. */
  def hash(bytes: Array[Byte]): Int = MurmurHash.hashBytesByWords(bytes, 0, bytes.length)
}
