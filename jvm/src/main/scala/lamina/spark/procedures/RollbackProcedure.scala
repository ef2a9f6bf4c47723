package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import lamina.api.Snapshots
import lamina.errors.BadInputException
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.rollback(table => 'db.t', version => '3' | 'tag')` (or `snapshot => 3`, `tag =>
 *  'name'`, as Paimon's procedure takes them): rolls the table back; returns `previous_snapshot_id`
 *  and `current_snapshot_id`. */
class RollbackProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "rollback"
  override def description(): String = "Rolls a table back to a snapshot or a tag."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    optional("version", StringType), optional("snapshot", LongType), optional("tag", StringType))
  override protected def output: StructType = RollbackProcedure.Output

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val given = Seq(args.string("version"), args.long("snapshot").map(_.toString), args.string("tag")).flatten
    if (given.size != 1) throw new BadInputException("Give exactly one of the arguments 'version', 'snapshot' and 'tag'")
    val (previous, current) = Snapshots.rollback(warehouse, args.requiredString("table"), given.head)
    Seq(InternalRow(previous, current))
  }
}

object RollbackProcedure {
  val Output: StructType = columns("previous_snapshot_id" -> LongType, "current_snapshot_id" -> LongType)
}
