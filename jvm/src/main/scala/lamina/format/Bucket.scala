package lamina.format

import lamina.types.DataType
import org.apache.spark.sql.catalyst.InternalRow

/** Paimon's default fixed-bucket function: the bucket-key fields are projected into a BinaryRow with
 *  row kind +I, and `bucket = abs(row.hashCode % numBuckets)` with Java's truncating `%`, so the result
 *  is in [0, numBuckets). */
object Bucket {
  def bucketOf(row: InternalRow, keyOrdinals: Array[Int], keyTypes: Seq[DataType], numBuckets: Int): Int = {
    require(keyOrdinals.length == keyTypes.length,
      s"${keyOrdinals.length} bucket-key ordinals but ${keyTypes.length} bucket-key types")
    bucketOfHash(BinaryRowCodec.hash(BinaryRowCodec.encode(row, keyOrdinals, keyTypes)), numBuckets)
  }

  def bucketOfHash(hash: Int, numBuckets: Int): Int = {
    require(numBuckets > 0, s"numBuckets must be positive, got $numBuckets")
    Math.abs(hash % numBuckets)
  }
}

/** [[Bucket.bucketOf]] for one table's bucket key, computed per written row: keys made only of
 *  integral, date and boolean fields are laid out as BinaryRow bytes in a reused buffer (the same
 *  bytes [[BinaryRowCodec.encode]] writes), other keys go through the codec. Not thread-safe. */
final class BucketFunction(keyOrdinals: Array[Int], keyTypes: Seq[DataType], numBuckets: Int) {
  require(keyOrdinals.length == keyTypes.length,
    s"${keyOrdinals.length} bucket-key ordinals but ${keyTypes.length} bucket-key types")
  require(numBuckets > 0, s"numBuckets must be positive, got $numBuckets")

  private val types = keyTypes.toIndexedSeq
  /** Per field: its width in the fixed part (1, 2, 4, 8), or 0 when the codec must encode the key. */
  private val widths: Array[Int] = types.map {
    case _: lamina.types.BooleanType | _: lamina.types.TinyIntType => 1
    case _: lamina.types.SmallIntType => 2
    case _: lamina.types.IntType | _: lamina.types.DateType | _: lamina.types.TimeType => 4
    case _: lamina.types.BigIntType => 8
    case _ => 0
  }.toArray
  private val fast = widths.forall(_ > 0)
  private val nullBits = BinaryRowCodec.nullBitsSizeInBytes(types.length)
  private val buffer = new Array[Byte](nullBits + 8 * types.length)
  private val bytes = java.nio.ByteBuffer.wrap(buffer).order(java.nio.ByteOrder.LITTLE_ENDIAN)

  def apply(row: InternalRow): Int =
    if (!fast) Bucket.bucketOfHash(BinaryRowCodec.hash(BinaryRowCodec.encode(row, keyOrdinals, types)), numBuckets)
    else {
      java.util.Arrays.fill(buffer, 0.toByte)
      var i = 0
      while (i < widths.length) {
        val pos = keyOrdinals(i)
        val slot = nullBits + 8 * i
        if (row.isNullAt(pos)) {
          val bit = i + BinaryRowCodec.HeaderBits
          buffer(bit >> 3) = (buffer(bit >> 3) | (1 << (bit & 7))).toByte
        } else widths(i) match {
          case 1 => buffer(slot) = types(i) match {
            case _: lamina.types.BooleanType => if (row.getBoolean(pos)) 1 else 0
            case _ => row.getByte(pos)
          }
          case 2 => bytes.putShort(slot, row.getShort(pos))
          case 4 => bytes.putInt(slot, row.getInt(pos))
          case _ => bytes.putLong(slot, row.getLong(pos))
        }
        i += 1
      }
      Bucket.bucketOfHash(BinaryRowCodec.hash(buffer), numBuckets)
    }
}
