package lamina.api

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.table.bucket.{BucketRescale, RescaleTasks}
import lamina.table.catalog.Metastore
import lamina.table.compact.CompactRequest
import lamina.table.schema.SchemaChange

/** The bucket counts of fixed-bucket tables: `CALL sys.rescale` and the Python API. */
object Buckets {

  /** What a rescale did: its snapshot (None when every selected partition already had the count) and
   *  how many partitions it rewrote. */
  final case class Rescaled(snapshotId: Option[Long], partitions: Int)

  /** Rewrites the partitions `partitions` (`k=v[,k2=v2][;k=v...]`) of `table` into `bucketNum` buckets,
   *  in one commit. Without partitions, the whole table: its `bucket` option becomes `bucketNum` first
   *  (the count of partitions written later; a postpone-bucket table keeps -2), then every partition is
   *  rewritten. `tasks` is where the
   *  rewrite runs. */
  def rescale(warehouse: Metastore, table: String, bucketNum: Int, partitions: String, tasks: RescaleTasks): Rescaled = {
    val loaded = warehouse.loadTable(table)
    BucketRescale.requireFixed(loaded, bucketNum)
    val specs = CompactRequest.parsePartitions(Option(partitions).getOrElse(""))
    val selected = if (specs.isEmpty) (_: InternalRow) => true else CompactRequest.matching(loaded, specs)
    val t =
      if (specs.nonEmpty || loaded.numBuckets == bucketNum || loaded.hasPostponeBuckets) loaded
      else {
        warehouse.alterTable(loaded, Seq(SchemaChange.SetOption("bucket", bucketNum.toString)))
        warehouse.loadTable(table)
      }
    val plan = BucketRescale.plan(t, selected, bucketNum)
    if (specs.nonEmpty && plan.matched == 0)
      throw new BadInputException(s"Rescale of table ${t.name}: no partition matches '$partitions'")
    Rescaled(BucketRescale.commit(plan, tasks.rewrite(plan)), plan.partitions)
  }
}
