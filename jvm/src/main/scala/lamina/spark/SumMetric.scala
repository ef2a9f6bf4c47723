package lamina.spark

import org.apache.spark.sql.connector.metric.{CustomSumMetric, CustomTaskMetric}

/** A custom metric of Lamina's that Spark's UI shows summed over tasks. Spark instantiates a metric's
 *  class by name on the driver: each subclass has a no-argument constructor. */
abstract class SumMetric(metricName: String, text: String) extends CustomSumMetric {
  override def name(): String = metricName
  override def description(): String = text
}

object SumMetric {

  /** One value of a metric, as a reader, writer or the driver reports it to Spark. */
  def value(metricName: String, v: Long): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = metricName
    override def value(): Long = v
  }
}
