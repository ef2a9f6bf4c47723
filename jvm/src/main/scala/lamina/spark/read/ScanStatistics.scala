package lamina.spark.read

import java.util.OptionalLong

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.expressions.{Expressions, NamedReference}
import org.apache.spark.sql.connector.read.{Statistics => SparkStatistics}
import org.apache.spark.sql.connector.read.colstats.ColumnStatistics
import org.apache.spark.sql.types.StructType

import lamina.table.stats.{ColStats, Statistics}

/** What a scan tells Spark's optimizer about its rows (`SupportsReportStatistics`): the table's
 *  latest `ANALYZE TABLE` statistics, as the snapshot read names them ([[Statistics]]): size in
 *  bytes and row count of the analysed snapshot, and per column read its distinct count, NULL count
 *  and lengths (not min and max, which Spark would take as internal values). Nothing when the table
 *  was never analysed: Spark then assumes a large table, as for any connector without statistics. */
object ScanStatistics {
  val Unknown: SparkStatistics = new SparkStatistics {
    override def sizeInBytes(): OptionalLong = OptionalLong.empty()
    override def numRows(): OptionalLong = OptionalLong.empty()
  }

  def of(stats: Option[Statistics], required: StructType): SparkStatistics = stats match {
    case None => Unknown
    case Some(s) =>
      new SparkStatistics {
        override def sizeInBytes(): OptionalLong = optional(s.mergedRecordSize)
        override def numRows(): OptionalLong = optional(s.mergedRecordCount)
        override def columnStats(): java.util.Map[NamedReference, ColumnStatistics] =
          required.fieldNames.flatMap(n => s.colStats.get(n).map(c => (Expressions.column(n): NamedReference) -> column(c)))
            .toMap.asJava
      }
  }

  private def column(c: ColStats): ColumnStatistics = new ColumnStatistics {
    override def distinctCount(): OptionalLong = optional(c.distinctCount)
    override def nullCount(): OptionalLong = optional(c.nullCount)
    override def avgLen(): OptionalLong = optional(c.avgLen)
    override def maxLen(): OptionalLong = optional(c.maxLen)
  }

  private def optional(v: Option[Long]): OptionalLong = v.map(OptionalLong.of).getOrElse(OptionalLong.empty())
}
