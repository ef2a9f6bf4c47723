package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Branching
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.delete_branch(table => 'db.t', branch => 'a[,b...]')`: deletes branches (their
 *  snapshot, schema and tag files; data files only they wrote go with `remove_orphan_files`).
 *  Returns `result` = true. */
class DeleteBranchProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "delete_branch"
  override def description(): String = "Deletes branches of a table."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType), required("branch", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Branching.delete(warehouse, args.requiredString("table"), args.requiredString("branch"))
    Seq(InternalRow(true))
  }
}
