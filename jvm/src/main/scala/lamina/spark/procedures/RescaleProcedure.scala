package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{IntegerType, LongType, StringType, StructType}

import lamina.api.Buckets
import lamina.spark.LaminaCatalog
import lamina.spark.compact.SparkRescale
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.rescale(table => 'db.t', bucket_num => 8 [, partition => 'k=v[,k2=v2][;...]'])`
 *  (Paimon's arguments): rewrites the partitions of a fixed-bucket table into `bucket_num` buckets in
 *  one commit; without a partition, the whole table, whose `bucket` option becomes `bucket_num`.
 *  Returns the snapshot id (null when nothing needed rescaling) and the partitions rewritten. */
class RescaleProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "rescale"
  override def description(): String =
    "Rewrites partitions of a fixed-bucket table (or the whole table) into a new bucket count, in one commit."
  override def parameters(): Array[ProcedureParameter] =
    Array(required("table", StringType), required("bucket_num", IntegerType), optional("partition", StringType, "''"))
  override protected def output: StructType = columns("snapshot_id" -> LongType, "partitions" -> IntegerType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val done = Buckets.rescale(warehouse, args.requiredString("table"), args.requiredInt("bucket_num"),
      args.string("partition").getOrElse(""),
      new SparkRescale(None))
    Seq(InternalRow(done.snapshotId.map(Long.box).orNull, done.partitions))
  }
}
