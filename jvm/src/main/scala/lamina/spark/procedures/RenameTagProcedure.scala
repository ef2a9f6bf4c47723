package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Tagging
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.rename_tag(table => 'db.t', tag => 'old', target_tag => 'new')`. Returns
 *  `result` = true. */
class RenameTagProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "rename_tag"
  override def description(): String = "Renames a tag."
  override def parameters(): Array[ProcedureParameter] =
    Array(required("table", StringType), required("tag", StringType), required("target_tag", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Tagging.rename(warehouse, args.requiredString("table"), args.requiredString("tag"), args.requiredString("target_tag"))
    Seq(InternalRow(true))
  }
}
