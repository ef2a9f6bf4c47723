package lamina.spark.procedures

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.types.{IntegerType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import lamina.api.Partitions
import lamina.spark.LaminaCatalog
import lamina.table.catalog.Metastore
import LaminaProcedure._

/** `CALL <catalog>.sys.expire_partitions(table => 'db.t', expiration_time => '7 d' [, timestamp_formatter
 *  => 'yyyyMMdd', timestamp_pattern => '$dt', expire_strategy => 'values-time' | 'update-time',
 *  max_expires => 10])`, Paimon's arguments, each defaulting to the table's `partition.*` option: drops
 *  the partitions older than the expiration time (one OVERWRITE snapshot). One `expired_partitions`
 *  row per partition dropped (`dt=2024-01-01`), or `No expired partitions.`, as Paimon answers. */
class ExpirePartitionsProcedure(catalog: LaminaCatalog) extends LaminaProcedure(catalog) {
  override def name(): String = "expire_partitions"
  override def description(): String = "Drops the partitions of a table that are older than an expiration time."
  override def parameters(): Array[ProcedureParameter] = Array(required("table", StringType),
    optional("expiration_time", StringType), optional("timestamp_formatter", StringType),
    optional("timestamp_pattern", StringType), optional("expire_strategy", StringType),
    optional("max_expires", IntegerType))
  override protected def output: StructType = columns("expired_partitions" -> StringType)

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val expired = Partitions.expire(warehouse, args.requiredString("table"), args.string("expiration_time"),
      args.string("timestamp_formatter"), args.string("timestamp_pattern"), args.string("expire_strategy"),
      args.int("max_expires"))
    (if (expired.isEmpty) Seq("No expired partitions.") else expired).map(p => InternalRow(UTF8String.fromString(p)))
  }
}
