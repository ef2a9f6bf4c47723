package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, LongType, StringType, StructType}

import lamina.api.Tagging
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.create_tag(table => 'db.t', tag => 'name' [, snapshot => 3, time_retained =>
 *  '7 d'])` and `sys.replace_tag(...)` with the same arguments: tags a snapshot (the latest when none is
 *  given), kept for `time_retained` (for ever when none). `snapshot_id` is accepted for `snapshot`
 *  (Paimon's Flink name). Returns `result` = true. */
class CreateTagProcedure(catalog: LaminaCatalog, replace: Boolean) extends LaminaProcedure(catalog) {
  override def name(): String = if (replace) "replace_tag" else "create_tag"
  override def description(): String =
    if (replace) "Points an existing tag at another snapshot." else "Tags a snapshot so that it is kept."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    required("tag", StringType), optional("snapshot", LongType), optional("time_retained", StringType),
    optional("snapshot_id", LongType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val (table, tag) = (args.requiredString("table"), args.requiredString("tag"))
    val snapshot = args.eitherLong("snapshot", "snapshot_id")
    if (replace) Tagging.replace(warehouse, table, tag, snapshot, args.string("time_retained"))
    else Tagging.create(warehouse, table, tag, snapshot, args.string("time_retained"))
    Seq(InternalRow(true))
  }
}
