package lamina.format.fileindex

import org.apache.spark.sql.catalyst.expressions.XXH64
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

import lamina.types._

/** Apache Paimon's 64-bit hash of a column value for its file-index bloom filters (`FastHash`): strings
 *  (their UTF-8 bytes) and binaries by xxHash64 with seed 0; integral, float, double, date and timestamp
 *  values by Thomas Wang's 64-bit integer hash of their bits (a float's `floatToIntBits` and the
 *  narrower integers sign-extended; a timestamp as epoch milliseconds at precision 3 or less, else as
 *  epoch microseconds). Values are Catalyst's internal ones. Other types have no hash: [[of]] is None. */
object FastHash {

  /** The hash of `t`'s non-null values, if `t` is a type Paimon's bloom filter indexes. */
  def of(t: DataType): Option[Any => Long] = t match {
    case _: CharType | _: VarCharType => Some { v =>
        val s = v.asInstanceOf[UTF8String]
        XXH64.hashUnsafeBytes(s.getBaseObject, s.getBaseOffset, s.numBytes, 0L)
      }
    case _: BinaryType | _: VarBinaryType => Some { v =>
        val b = v.asInstanceOf[Array[Byte]]
        XXH64.hashUnsafeBytes(b, Platform.BYTE_ARRAY_OFFSET, b.length, 0L)
      }
    case _: TinyIntType => Some(v => longHash(v.asInstanceOf[Byte].toLong))
    case _: SmallIntType => Some(v => longHash(v.asInstanceOf[Short].toLong))
    case _: IntType | _: DateType => Some(v => longHash(v.asInstanceOf[Int].toLong))
    case _: BigIntType => Some(v => longHash(v.asInstanceOf[Long]))
    case _: FloatType => Some(v => longHash(java.lang.Float.floatToIntBits(v.asInstanceOf[Float]).toLong))
    case _: DoubleType => Some(v => longHash(java.lang.Double.doubleToLongBits(v.asInstanceOf[Double])))
    case TimestampType(p, _) => Some(timestamp(p))
    case LocalZonedTimestampType(p, _) => Some(timestamp(p))
    case _ => None
  }

  /** Catalyst holds timestamps as epoch microseconds. */
  private def timestamp(precision: Int): Any => Long = { v =>
    val micros = v.asInstanceOf[Long]
    longHash(if (precision <= 3) Math.floorDiv(micros, 1000L) else micros)
  }

  /** Thomas Wang's 64-bit integer hash, as Paimon computes it (arithmetic shifts). */
  def longHash(k: Long): Long = {
    var key = k
    key = (~key) + (key << 21)
    key = key ^ (key >> 24)
    key = (key + (key << 3)) + (key << 8)
    key = key ^ (key >> 14)
    key = (key + (key << 2)) + (key << 4)
    key = key ^ (key >> 28)
    key = key + (key << 31)
    key
  }
}
