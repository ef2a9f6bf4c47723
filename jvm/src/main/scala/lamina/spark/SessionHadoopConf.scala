package lamina.spark

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession

import lamina.io.StorageConf

/** The Hadoop configuration the engine works with, taken from a Spark session. */
object SessionHadoopConf {

  /** The session's Hadoop configuration, with Lamina's file-system settings ([[StorageConf]]). */
  def apply(spark: SparkSession): Configuration = StorageConf(spark.sessionState.newHadoopConf())
}
