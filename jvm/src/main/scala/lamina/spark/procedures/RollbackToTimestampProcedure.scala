package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import lamina.api.Snapshots
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.rollback_to_timestamp(table => 'db.t', timestamp => <epoch ms>)`: rolls back to
 *  the latest snapshot committed at or before the timestamp. */
class RollbackToTimestampProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "rollback_to_timestamp"
  override def description(): String = "Rolls a table back to the snapshot it had at a time."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType), required("timestamp", LongType))
  override protected def output: StructType = RollbackProcedure.Output

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val (previous, current) =
      Snapshots.rollbackToTimestamp(warehouse, args.requiredString("table"), args.requiredLong("timestamp"))
    Seq(InternalRow(previous, current))
  }
}
