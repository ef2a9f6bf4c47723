package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Branching
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.fast_forward(table => 'db.t', branch => 'b')`: the main branch becomes the
 *  branch (Paimon's semantics: main's snapshots, schemas and tags from the branch's earliest snapshot
 *  on are replaced by the branch's). Returns `result` = true. */
class FastForwardProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "fast_forward"
  override def description(): String = "Makes the main branch of a table the given branch."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType), required("branch", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Branching.fastForward(warehouse, args.requiredString("table"), args.requiredString("branch"))
    Seq(InternalRow(true))
  }
}
