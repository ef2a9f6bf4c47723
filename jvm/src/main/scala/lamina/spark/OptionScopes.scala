package lamina.spark

import org.apache.spark.sql.SparkSession

/** The one documented order in which option values are resolved (first hit wins): the read or
 *  write option of the query, the session conf `spark.lamina.<key>`, the table's own option; the
 *  registry's default applies when none is set. */
object OptionScopes {
  val SessionPrefix = "spark.lamina."

  def merged(tableOptions: Map[String, String], queryOptions: Map[String, String]): Map[String, String] = {
    val session = SparkSession.getActiveSession.map(_.conf.getAll.collect {
      case (k, v) if k.startsWith(SessionPrefix) => k.stripPrefix(SessionPrefix) -> v
    }).getOrElse(Map.empty)
    tableOptions ++ session ++ queryOptions
  }
}
