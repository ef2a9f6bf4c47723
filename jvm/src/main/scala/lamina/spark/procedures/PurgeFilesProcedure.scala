package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import lamina.api.Snapshots
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.purge_files(table => 'db.t')`: empties the table for good, keeping its schema
 *  and one empty snapshot ([[lamina.table.lifecycle.PurgeFiles]]). Returns `result` = 'Success', as Paimon's. */
class PurgeFilesProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "purge_files"
  override def description(): String =
    "Removes every row, snapshot but the latest, tag, branch, consumer and unreferenced file of a table."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType))
  override protected def output: StructType = columns("result" -> StringType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Snapshots.purgeFiles(warehouse, args.requiredString("table"))
    Seq(InternalRow(UTF8String.fromString("Success")))
  }
}
