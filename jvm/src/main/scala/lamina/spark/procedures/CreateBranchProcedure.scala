package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Branching
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.create_branch(table => 'db.t', branch => 'b' [, tag => 'name'])`: a branch
 *  starting at the tag's snapshot, or an empty one with the table's current schema when no tag is
 *  given (Paimon's semantics). Read and write it as `db.t$branch_b`. Returns `result` = true. */
class CreateBranchProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "create_branch"
  override def description(): String = "Creates a branch of a table, from a tag or empty."
  override def parameters(): Array[ProcedureParameter] =
    Array(required("table", StringType), required("branch", StringType), optional("tag", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Branching.create(warehouse, args.requiredString("table"), args.requiredString("branch"), args.string("tag"))
    Seq(InternalRow(true))
  }
}
