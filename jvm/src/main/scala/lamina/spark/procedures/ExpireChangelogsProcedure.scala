package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, IntegerType, StringType, StructType}

import lamina.api.Snapshots
import lamina.spark.{LaminaCatalog, SessionZone}
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.expire_changelogs(table => 'db.t' [, retain_max => 50, retain_min => 10,
 *  older_than => '2024-05-01 12:00:00', max_deletes => 50, delete_all => false])`: Paimon's procedure
 *  (of its Flink engine) for the changelogs kept longer than snapshots; each argument given replaces
 *  the table's `changelog.*` option, and `delete_all` removes every kept changelog. Returns
 *  `deleted_changelogs_count`. */
class ExpireChangelogsProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "expire_changelogs"
  override def description(): String = "Expires the changelogs kept longer than snapshots and the files only they use."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    optional("retain_max", IntegerType), optional("retain_min", IntegerType), optional("older_than", StringType),
    optional("max_deletes", IntegerType), optional("delete_all", BooleanType))
  override protected def output: StructType = columns("deleted_changelogs_count" -> IntegerType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] =
    Seq(InternalRow(Snapshots.expireChangelogs(warehouse, args.requiredString("table"), args.int("retain_max"),
          args.int("retain_min"), args.string("older_than"), args.int("max_deletes"),
          args.boolean("delete_all").getOrElse(false), zone = SessionZone.current())))
}
