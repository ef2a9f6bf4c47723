package lamina.format.fileindex

import java.io.DataOutputStream
import java.nio.{BufferUnderflowException, ByteBuffer}

import org.apache.spark.unsafe.types.UTF8String

import lamina.types._

/** How a bitmap index (Apache Paimon's `BitmapFileIndex`) keys one column's values: the Java object a
 *  Catalyst value becomes (its `equals` and `hashCode` are Paimon's for the same value: a string's
 *  [[UTF8String]] hashes its UTF-8 bytes by the same Murmur3 as Paimon's `BinaryString`), its bytes
 *  (big-endian: `byte`, `short`, `int`, `long`, `float`, `double`, `boolean` as one byte; a string as
 *  `length:i32` then its UTF-8 bytes), and its order (unsigned bytes for strings, `Float.compare` /
 *  `Double.compare` for floating point). Timestamps are keyed as epoch milliseconds at precision 3 or
 *  less, else as epoch microseconds (as longs); dates as days (ints). */
final case class BitmapKey(
    key: Any => AnyRef,
    size: AnyRef => Int,
    write: (DataOutputStream, AnyRef) => Unit,
    read: ByteBuffer => AnyRef,
    ordering: Ordering[AnyRef])

object BitmapKey {

  /** The keys of `t`'s values, if `t` is a type Paimon's bitmap index takes (and Spark can hold). */
  def of(t: DataType): Option[BitmapKey] = t match {
    case _: CharType | _: VarCharType => Some(BitmapKey(v => v.asInstanceOf[UTF8String].copy(),
          k => 4 + k.asInstanceOf[UTF8String].numBytes(),
          (o, k) => { val b = k.asInstanceOf[UTF8String].getBytes; o.writeInt(b.length); o.write(b) },
          { in =>
            val n = in.getInt()
            if (n < 0 || n > in.remaining()) throw new BufferUnderflowException
            val b = new Array[Byte](n)
            in.get(b)
            UTF8String.fromBytes(b)
          },
          (a, b) => a.asInstanceOf[UTF8String].binaryCompare(b.asInstanceOf[UTF8String])))
    case _: BooleanType => Some(fixed[java.lang.Boolean](1, (o, k) => o.writeBoolean(k), in => in.get() != 0))
    case _: TinyIntType => Some(fixed[java.lang.Byte](1, (o, k) => o.writeByte(k.intValue), _.get()))
    case _: SmallIntType => Some(fixed[java.lang.Short](2, (o, k) => o.writeShort(k.intValue), _.getShort()))
    case _: IntType | _: DateType => Some(fixed[Integer](4, (o, k) => o.writeInt(k), _.getInt()))
    case _: BigIntType => Some(fixed[java.lang.Long](8, (o, k) => o.writeLong(k), _.getLong()))
    case _: FloatType => Some(fixed[java.lang.Float](4, (o, k) => o.writeFloat(k), _.getFloat()))
    case _: DoubleType => Some(fixed[java.lang.Double](8, (o, k) => o.writeDouble(k), _.getDouble()))
    case TimestampType(p, _) => Some(timestamp(p))
    case LocalZonedTimestampType(p, _) => Some(timestamp(p))
    case _ => None
  }

  private def fixed[K <: AnyRef with Comparable[K]](bytes: Int, w: (DataOutputStream, K) => Unit, r: ByteBuffer => K): BitmapKey =
    BitmapKey(v => v.asInstanceOf[AnyRef], _ => bytes, (o, k) => w(o, k.asInstanceOf[K]), r,
      (a, b) => a.asInstanceOf[K].compareTo(b.asInstanceOf[K]))

  /** Catalyst holds timestamps as epoch microseconds. */
  private def timestamp(precision: Int): BitmapKey = {
    val long = fixed[java.lang.Long](8, (o, k) => o.writeLong(k), _.getLong())
    long.copy(key = { v =>
      val micros = v.asInstanceOf[Long]
      java.lang.Long.valueOf(if (precision <= 3) Math.floorDiv(micros, 1000L) else micros)
    })
  }
}
