package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import lamina.api.Compaction
import lamina.spark.LaminaCatalog
import lamina.spark.compact.SparkCompactTasks
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.compact(table => 'db.t' [, partitions => 'k=v[,k2=v2][;k=v...]',
 *  compact_strategy => 'full' | 'minor', order_strategy => 'none' | 'order' | 'zorder' | 'hilbert',
 *  order_by => 'c1,c2', where => 'sql condition on partition columns'])`, Paimon's arguments in
 *  Paimon's order: compacts a table and returns the snapshot id it committed (null when nothing needed
 *  compacting). Without a strategy the compaction is full, as Paimon's procedure is in a batch job;
 *  'minor' lets universal compaction pick the runs (append tables: packs fewer small files). An order
 *  rewrites an append table's selected partitions sorted by `order_by`. */
class CompactProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "compact"
  override def description(): String =
    "Compacts a table: merges the sorted runs of a primary-key table's buckets, packs an append table's small " +
      "files, or rewrites an append table sorted by order_by (order, zorder, hilbert)."

  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    optional("partitions", StringType, "''"), optional("compact_strategy", StringType, "'full'"),
    optional("order_strategy", StringType, "'none'"), optional("order_by", StringType, "''"),
    optional("where", StringType, "''"))
  override protected def output: StructType = columns("snapshot_id" -> LongType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    def str(name: String): String = args.string(name).getOrElse("")
    val snapshot = Compaction.compact(warehouse, str("table"), str("partitions"), str("compact_strategy"),
      str("order_strategy"), str("order_by"), str("where"), SparkCompactTasks)
    Seq(InternalRow(snapshot.map(Long.box).orNull))
  }
}
