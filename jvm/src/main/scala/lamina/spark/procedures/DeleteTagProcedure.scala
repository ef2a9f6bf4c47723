package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Tagging
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.delete_tag(table => 'db.t', tag => 'a[,b...]')`: deletes tags, and the files
 *  only they kept. Returns `result` = true. */
class DeleteTagProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "delete_tag"
  override def description(): String = "Deletes tags."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType), required("tag", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Tagging.delete(warehouse, args.requiredString("table"), args.requiredString("tag"))
    Seq(InternalRow(true))
  }
}
