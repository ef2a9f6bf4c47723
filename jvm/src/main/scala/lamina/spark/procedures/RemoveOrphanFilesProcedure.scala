package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, LongType, StringType, StructType}

import lamina.api.Snapshots
import lamina.spark.{LaminaCatalog, SessionZone}
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.remove_orphan_files(table => 'db.t' [, older_than => '2024-05-01 12:00:00',
 *  dry_run => true])`: Paimon's procedure; removes the files no snapshot or tag refers to, last modified
 *  before `older_than` (a day ago by default), or only counts them with `dry_run`. Returns Paimon's
 *  `deletedFileCount` and `deletedFileTotalLenInBytes`. */
class RemoveOrphanFilesProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "remove_orphan_files"
  override def description(): String = "Removes files that no snapshot or tag refers to."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    optional("older_than", StringType), optional("dry_run", BooleanType, "false"))
  override protected def output: StructType = columns("deletedFileCount" -> LongType, "deletedFileTotalLenInBytes" -> LongType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val (count, bytes) = Snapshots.removeOrphanFiles(warehouse, args.requiredString("table"), args.string("older_than"),
      args.boolean("dry_run").getOrElse(false), zone = SessionZone.current())
    Seq(InternalRow(count, bytes))
  }
}
