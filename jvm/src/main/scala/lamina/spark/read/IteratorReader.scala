package lamina.spark.read

import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.PartitionReader

/** A partition reader over an iterator (of rows or of columnar batches) that holds nothing to close;
 *  its metrics are what `counters` counted as the iterator was read ([[ScanMetrics]]). */
object IteratorReader {
  def apply[T](items: Iterator[T], counters: ScanCounters = new ScanCounters): PartitionReader[T] =
    new PartitionReader[T] {
      private var cur: T = _
      override def next(): Boolean = items.hasNext && { cur = items.next(); true }
      override def get(): T = cur
      override def close(): Unit = ()
      override def currentMetricsValues(): Array[CustomTaskMetric] = counters.values
    }
}
