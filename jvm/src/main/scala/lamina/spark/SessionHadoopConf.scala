package lamina.spark

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession

import lamina.table.Warehouse

/** The Hadoop configuration the engine works with, taken from a Spark session. */
object SessionHadoopConf {

  /** The session's Hadoop configuration, with local files written without `.crc` side files. */
  def apply(spark: SparkSession): Configuration = Warehouse.noChecksums(spark.sessionState.newHadoopConf())
}
