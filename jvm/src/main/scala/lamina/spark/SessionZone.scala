package lamina.spark

import java.time.ZoneId

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.internal.SQLConf

/** The time zone in which procedures and the table API read timestamp arguments (`older_than`): the
 *  session's `spark.sql.session.timeZone`, as Spark reads `TIMESTAMP AS OF`. */
object SessionZone {
  def apply(spark: SparkSession): ZoneId = DateTimeUtils.getZoneId(spark.sessionState.conf.sessionLocalTimeZone)

  /** The zone of the session running the current statement (a procedure's). */
  def current(): ZoneId = DateTimeUtils.getZoneId(SQLConf.get.sessionLocalTimeZone)
}
