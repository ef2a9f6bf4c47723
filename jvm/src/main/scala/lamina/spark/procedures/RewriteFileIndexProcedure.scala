package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{IntegerType, StringType, StructType}

import lamina.api.FileIndexes
import lamina.spark.LaminaCatalog
import lamina.spark.compact.SparkFileIndexRewrite
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.rewrite_file_index(table => 'db.t' [, where => 'day = ...'])` (Paimon's
 *  arguments): gives the live data files (of the partitions `where` selects) the file indexes the
 *  table's `file-index.*` options ask for now, in one COMPACT snapshot. Returns, as Paimon's, the
 *  partitions and the files whose indexes were written. */
class RewriteFileIndexProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "rewrite_file_index"
  override def description(): String =
    "Writes the file indexes that a table's options ask for into its existing data files, in one commit."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType), optional("where", StringType))
  override protected def output: StructType = columns("written_partitions" -> IntegerType, "written_indexes" -> IntegerType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val done = FileIndexes.rewrite(warehouse, args.requiredString("table"), args.string("where").getOrElse(""),
      SparkFileIndexRewrite)
    Seq(InternalRow(done.partitions, done.files))
  }
}
