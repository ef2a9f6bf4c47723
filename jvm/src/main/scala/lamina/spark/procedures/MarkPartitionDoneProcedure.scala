package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Partitions
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.mark_partition_done(table => 'db.t', partitions => 'dt=20240501[,hh=01][;...]')`:
 *  marks each partition done with the table's `partition.mark-done-action` (Paimon's `success-file`: a
 *  `_SUCCESS` file in the partition's directory). Returns `result` = true, as Paimon's. */
class MarkPartitionDoneProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "mark_partition_done"
  override def description(): String = "Marks partitions done (a _SUCCESS file in each partition's directory)."
  override def parameters(): Array[ProcedureParameter] =
    Array(required("table", StringType), required("partitions", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Partitions.markDone(warehouse, args.requiredString("table"), args.requiredString("partitions"))
    Seq(InternalRow(true))
  }
}
