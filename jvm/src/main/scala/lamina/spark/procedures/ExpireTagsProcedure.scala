package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import lamina.api.Tagging
import lamina.spark.{LaminaCatalog, SessionZone}
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.expire_tags(table => 'db.t' [, older_than => '2024-05-01 00:00:00'])`: Paimon's
 *  procedure; deletes the tags whose `time_retained` has run out and, with `older_than`, those created
 *  before it. One row per expired tag (`expired_tags`), or Paimon's "No expired tags.". */
class ExpireTagsProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "expire_tags"
  override def description(): String = "Deletes tags whose retention ran out or that are older than a time."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType), optional("older_than", StringType))
  override protected def output: StructType = columns("expired_tags" -> StringType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val expired = Tagging.expire(warehouse, args.requiredString("table"), args.string("older_than"), SessionZone.current())
    (if (expired.isEmpty) Seq("No expired tags.") else expired).map(n => InternalRow(UTF8String.fromString(n)))
  }
}
