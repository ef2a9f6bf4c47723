package lamina.table.bucket

/** Where a cross-partition upsert puts one record ([[CrossPartitionAssigner]]). Partitions are
 *  serialized binary rows. */
sealed trait KeyPlacement

object KeyPlacement {

  /** Into bucket `bucket` of the record's own partition. */
  final case class Here(bucket: Int) extends KeyPlacement

  /** A -D record of the key into `oldBucket` of `oldPartition`, then the record into `bucket` of its
   *  own partition ([[ExistingKeyPolicy.DeleteOld]]). */
  final case class Moved(oldPartition: Array[Byte], oldBucket: Int, bucket: Int) extends KeyPlacement

  /** The record, its partition columns set to `oldPartition`'s values, into `oldBucket` there
   *  ([[ExistingKeyPolicy.UseOld]]). */
  final case class IntoOld(oldPartition: Array[Byte], oldBucket: Int) extends KeyPlacement

  /** Not written ([[ExistingKeyPolicy.SkipNew]]). */
  case object Dropped extends KeyPlacement
}
