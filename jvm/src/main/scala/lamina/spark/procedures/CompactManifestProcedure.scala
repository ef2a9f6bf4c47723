package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{BooleanType, StringType, StructType}

import lamina.api.Snapshots
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.compact_manifest(table => 'db.t')`: folds the latest snapshot's manifests into
 *  as few as hold its live files, in a COMPACT snapshot with the same rows (nothing is committed when
 *  there is one manifest without deletes). Returns `result` = true, as Paimon's. */
class CompactManifestProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "compact_manifest"
  override def description(): String = "Folds a table's manifests into as few as hold its live files."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType))
  override protected def output: StructType = columns("result" -> BooleanType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    Snapshots.compactManifests(warehouse, args.requiredString("table"))
    Seq(InternalRow(true))
  }
}
