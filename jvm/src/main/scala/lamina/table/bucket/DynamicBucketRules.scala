package lamina.table.bucket

import lamina.errors.BadInputException
import lamina.table.options.CoreOptions
import lamina.table.schema.TableSchema

/** What a primary-key table with `bucket` = -1 (dynamic buckets) must be: its primary key holds every
 *  partition column (a key that moves between partitions, Paimon's cross-partition upsert, is not
 *  implemented), and its buckets are by the whole key (no `bucket-key`), as Paimon requires. */
object DynamicBucketRules {

  def check(s: TableSchema, table: String): Unit = {
    if (s.primaryKeys.isEmpty || s.numBuckets != -1) return
    val outside = s.partitionKeys.filterNot(s.primaryKeys.contains)
    if (outside.nonEmpty)
      throw new BadInputException(s"Table $table has 'bucket' = '-1' and partition column(s) ${outside.mkString(", ")} " +
        "outside its primary key, which asks for cross-partition upsert (a key moving between partitions), which " +
        "Lamina does not implement: put every partition column in the primary key, or set 'bucket' to a positive number")
    if (CoreOptions.BucketKey.get(s.options).exists(_.nonEmpty))
      throw new BadInputException(s"Table $table has 'bucket-key' with 'bucket' = '-1' (dynamic buckets, which are " +
        "assigned by the whole primary key): remove 'bucket-key', or set 'bucket' to a positive number")
    val max = CoreOptions.DynamicBucketMaxBuckets.getOrDefault(s.options)
    if (max == 0 || max < -1)
      throw BadInputException.invalidOption(CoreOptions.DynamicBucketMaxBuckets.key, max.toString,
        "use -1 (no limit) or a positive number", Some(table))
  }
}
