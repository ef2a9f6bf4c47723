package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import lamina.api.Compaction
import lamina.spark.LaminaCatalog
import lamina.spark.compact.SparkCompactTasks
import lamina.table.Warehouse
import LaminaProcedure._

/** `CALL <catalog>.sys.compact(table => 'db.t' [, partitions => 'k=v[,k2=v2][;k=v...]',
 *  compact_strategy => 'full' | 'minor'])`: compacts a table and returns the COMPACT snapshot id
 *  (null when nothing needed compacting). Without a strategy the compaction is full, as Paimon's
 *  procedure is in a batch job; 'minor' lets universal compaction pick the runs of a primary-key
 *  table, and picks an append table's small files and files with many deleted rows. */
class CompactProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "compact"
  override def description(): String =
    "Compacts the buckets of a table (primary key: universal or full compaction; append: file merging)."

  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    optional("partitions", StringType, "''"), optional("compact_strategy", StringType, "'full'"))
  override protected def output: StructType = columns("snapshot_id" -> LongType)

  override protected def run(args: ProcedureArgs, warehouse: Warehouse): Seq[InternalRow] = {
    def str(name: String): String = args.string(name).getOrElse("")
    val snapshot = Compaction.compact(warehouse, str("table"), str("partitions"), str("compact_strategy"), SparkCompactTasks)
    Seq(InternalRow(snapshot.map(Long.box).orNull))
  }
}
