package lamina.table.sink

import scala.collection.immutable.ArraySeq

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}

import lamina.errors.BadInputException
import lamina.format.{BinaryRowCodec, Bucket, KeyHashFunction}
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.types.SparkTypes

/** Where a written row goes (its partition values and bucket) and the checks every written row
 *  passes first (NOT NULL columns, CHAR/VARCHAR lengths). One per writer task. A fixed-bucket
 *  partition in `buckets.counts` has that many buckets, the others `buckets.default` or the table's
 *  `bucket` ([[WriteBuckets]]). */
final class RowRouting(table: FileStoreTable, buckets: WriteBuckets = WriteBuckets()) {
  private val bucketCounts = buckets.counts
  private val schema = table.schema
  private val partitionOrdinals = schema.partitionKeys.map(schema.indexOf).toArray
  private val partitionProjection: Option[UnsafeProjection] =
    if (partitionOrdinals.isEmpty) None
    else Some(UnsafeProjection.create(partitionOrdinals.toSeq.map { i =>
      BoundReference(i, SparkTypes.toSpark(schema.fields(i).dataType), nullable = true)
    }))
  private val emptyPartition = new UnsafeRow(0)
  private val nonNullOrdinals: Array[Int] = schema.fields.indices.filter(i => !schema.fields(i).dataType.nullable).toArray
  private val charRules = new CharVarcharRules(schema, table.name)

  /** The bucket count of a partition not in `buckets.counts`. */
  val numBuckets: Int = buckets.default.getOrElse(schema.numBuckets)
  private val hashFunction = if (numBuckets > 0 || bucketCounts.nonEmpty) Some(keyHash) else None
  private var lastPartition: UnsafeRow = _
  private var lastCount = numBuckets

  /** The row after the CHAR/VARCHAR rules, having passed the NOT NULL checks. */
  def checked(input: InternalRow): InternalRow = {
    val row = if (charRules.isEmpty) input else charRules(input)
    var k = 0 // a loop over an int array: this runs per row
    while (k < nonNullOrdinals.length) {
      val i = nonNullOrdinals(k)
      if (row.isNullAt(i))
        throw new BadInputException(
          s"Column '${schema.fields(i).name}' of table ${table.name} is NOT NULL but a row has null there")
      k += 1
    }
    row
  }

  /** The partition values of the row (reused: copy to keep). */
  def partition(row: InternalRow): UnsafeRow = partitionProjection.map(_.apply(row)).getOrElse(emptyPartition)

  /** The hash of a row's bucket key, which dynamic buckets are assigned by. */
  def keyHash: KeyHashFunction =
    new KeyHashFunction(schema.bucketKeys.map(schema.indexOf).toArray, schema.bucketKeys.map(k => schema.field(k).get.dataType))

  /** The bucket count of `partition` (the row [[partition]] returned): the table's, or the one the
   *  partition was rescaled to. */
  def bucketsOf(partition: UnsafeRow): Int =
    if (bucketCounts.isEmpty) numBuckets
    else {
      if (lastPartition == null || !lastPartition.equals(partition)) {
        lastPartition = partition.copy()
        lastCount = bucketCounts.getOrElse(
          ArraySeq.unsafeWrapArray(BinaryRowCodec.serialize(lastPartition, schema.partitionTypes)), numBuckets)
      }
      lastCount
    }

  /** Paimon's bucket of the row in its `partition`; 0 for bucket-unaware tables; bucket-postpone for a
   *  write into it (`buckets.default` is [[FileStorePaths.PostponeBucket]], no partition counted). */
  def bucket(row: InternalRow, partition: UnsafeRow): Int = hashFunction match {
    case Some(f) => Bucket.bucketOfHash(f(row), bucketsOf(partition))
    case None => if (numBuckets == FileStorePaths.PostponeBucket) numBuckets else 0
  }
}
