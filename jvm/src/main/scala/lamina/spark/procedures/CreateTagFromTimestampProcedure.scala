package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{LongType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import lamina.api.Tagging
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.create_tag_from_timestamp(table => 'db.t', tag => 'name', timestamp => <epoch
 *  ms> [, time_retained => '7 d'])`: tags the first snapshot committed at or after the timestamp.
 *  Returns Paimon's columns `tagName`, `snapshot`, `commit_time`, `watermark`. */
class CreateTagFromTimestampProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "create_tag_from_timestamp"
  override def description(): String = "Tags the first snapshot committed at or after a time."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    required("tag", StringType), required("timestamp", LongType), optional("time_retained", StringType))
  override protected def output: StructType =
    columns("tagName" -> StringType, "snapshot" -> LongType, "commit_time" -> LongType, "watermark" -> StringType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val tag = args.requiredString("tag")
    val (snapshot, commitTime) = Tagging.createFromTimestamp(warehouse, args.requiredString("table"), tag,
      args.requiredLong("timestamp"), args.string("time_retained"))
    Seq(InternalRow(UTF8String.fromString(tag), snapshot, commitTime, null))
  }
}
