package lamina.table.bucket

import lamina.errors.BadInputException
import lamina.table.options.CoreOptions
import lamina.table.schema.TableSchema

/** What a primary-key table with `bucket` = -1 (dynamic buckets) must be: its buckets are by the whole
 *  primary key less the partition columns (no `bucket-key`), as Paimon requires. A primary key without
 *  every partition column makes it a cross-partition upsert table ([[isCrossPartition]]), whose keys
 *  move between partitions ([[CrossPartitionAssigner]]). */
object DynamicBucketRules {

  /** Whether `s` is a cross-partition upsert table: a primary key leaving out a partition column, with
   *  dynamic buckets. */
  def isCrossPartition(s: TableSchema): Boolean =
    s.primaryKeys.nonEmpty && s.numBuckets == -1 && s.partitionKeys.exists(p => !s.primaryKeys.contains(p))

  def check(s: TableSchema, table: String): Unit = {
    if (s.primaryKeys.isEmpty || s.numBuckets != -1) return
    if (CoreOptions.BucketKey.get(s.options).exists(_.nonEmpty))
      throw new BadInputException(s"Table $table has 'bucket-key' with 'bucket' = '-1' (dynamic buckets, which are " +
        "assigned by the whole primary key): remove 'bucket-key', or set 'bucket' to a positive number")
    val max = CoreOptions.DynamicBucketMaxBuckets.getOrDefault(s.options)
    if (max == 0 || max < -1)
      throw BadInputException.invalidOption(CoreOptions.DynamicBucketMaxBuckets.key, max.toString,
        "use -1 (no limit) or a positive number", Some(table))
  }
}
