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

/** The hash that Paimon buckets a row by: of the binary row of its bucket key, computed per written
 *  row. Keys made only of integral, date and boolean fields are hashed from their values
 *  ([[BinaryRowCodec.hashFixed]], or through a reused buffer past its arity), other keys through
 *  [[BinaryRowCodec.encode]]. Not thread-safe. */
final class KeyHashFunction(keyOrdinals: Array[Int], keyTypes: Seq[DataType]) {
  require(keyOrdinals.length == keyTypes.length,
    s"${keyOrdinals.length} bucket-key ordinals but ${keyTypes.length} bucket-key types")

  private val types = keyTypes.toIndexedSeq
  private val fixed = BinaryRowCodec.fixedWidths(types)
  private val buffer = new Array[Byte](BinaryRowCodec.nullBitsSizeInBytes(types.length) + 8 * types.length)

  def apply(row: InternalRow): Int = fixed match {
    case Some(widths) if widths.length <= BinaryRowCodec.MaxHashFixedArity =>
      BinaryRowCodec.hashFixed(row, keyOrdinals, types, widths)
    case Some(widths) =>
      BinaryRowCodec.encodeFixedInto(row, keyOrdinals, types, widths, buffer)
      BinaryRowCodec.hash(buffer)
    case None => BinaryRowCodec.hash(BinaryRowCodec.encode(row, keyOrdinals, types))
  }
}

/** [[Bucket.bucketOf]] for one table's bucket key ([[KeyHashFunction]]). Not thread-safe. */
final class BucketFunction(keyOrdinals: Array[Int], keyTypes: Seq[DataType], numBuckets: Int) {
  require(numBuckets > 0, s"numBuckets must be positive, got $numBuckets")
  private val hash = new KeyHashFunction(keyOrdinals, keyTypes)

  def apply(row: InternalRow): Int = Bucket.bucketOfHash(hash(row), numBuckets)
}
