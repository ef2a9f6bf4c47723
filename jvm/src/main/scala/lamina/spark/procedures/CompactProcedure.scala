package lamina.spark.procedures

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.catalog.procedures.{BoundProcedure, ProcedureParameter, UnboundProcedure}
import org.apache.spark.sql.connector.read.{LocalScan, Scan}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}

import lamina.api.Compaction
import lamina.spark.LaminaCatalog
import lamina.spark.compact.SparkCompactTasks

/** `CALL <catalog>.sys.compact(table => 'db.t' [, partitions => 'k=v[,k2=v2][;k=v...]',
 *  compact_strategy => 'full' | 'minor'])`: compacts a primary-key table and returns the COMPACT
 *  snapshot id (null when nothing needed compacting). Without a strategy the compaction is full, as
 *  Paimon's procedure is in a batch job; 'minor' lets universal compaction pick the runs. */
class CompactProcedure(catalog: LaminaCatalog) extends UnboundProcedure with BoundProcedure {
  override def name(): String = "compact"
  override def description(): String = "Compacts the buckets of a primary-key table (universal or full compaction)."
  override def bind(input: StructType): BoundProcedure = this
  override def isDeterministic: Boolean = false

  override def parameters(): Array[ProcedureParameter] = Array(
    ProcedureParameter.in("table", StringType).build(),
    ProcedureParameter.in("partitions", StringType).defaultValue("''").build(),
    ProcedureParameter.in("compact_strategy", StringType).defaultValue("'full'").build())

  override def call(args: InternalRow): java.util.Iterator[Scan] = {
    def str(i: Int): String = if (args.isNullAt(i)) "" else args.getUTF8String(i).toString
    val snapshot = Compaction.compact(catalog.laminaWarehouse, str(0), str(1), str(2), SparkCompactTasks)
    val row = InternalRow(snapshot.map(Long.box).orNull)
    Seq[Scan](new LocalScan {
      override def rows(): Array[InternalRow] = Array(row)
      override def readSchema(): StructType = StructType(Seq(StructField("snapshot_id", LongType, nullable = true)))
    }).iterator.asJava
  }
}
