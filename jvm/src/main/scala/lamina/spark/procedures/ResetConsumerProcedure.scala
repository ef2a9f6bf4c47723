package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, LongType, StringType, StructType}

import lamina.api.Consumers
import lamina.errors.BadInputException
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.reset_consumer(table => 'db.t', consumerId => 'id'[, nextSnapshotId => N])`
 *  (Paimon's names; `consumer_id` and `next_snapshot_id` also): the consumer's next stream starts at
 *  snapshot N; without N the consumer is removed, and no longer holds snapshots back from expiring.
 *  Returns `result` = true. */
class ResetConsumerProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "reset_consumer"
  override def description(): String = "Moves a streaming consumer to another snapshot, or removes it."
  override def parameters(): Array[ProcedureParameter] = Array(
    required("table", StringType), optional("consumerId", StringType), optional("nextSnapshotId", LongType),
    optional("consumer_id", StringType), optional("next_snapshot_id", LongType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val id = args.eitherString("consumerId", "consumer_id").getOrElse(
      throw new BadInputException("Argument 'consumerId' must be given (not NULL or blank)"))
    Consumers.reset(warehouse, args.requiredString("table"), id, args.eitherLong("nextSnapshotId", "next_snapshot_id"))
    Seq(InternalRow(true))
  }
}
