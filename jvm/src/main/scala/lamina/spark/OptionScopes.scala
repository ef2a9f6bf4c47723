package lamina.spark

import org.apache.spark.sql.SparkSession

import lamina.table.options.CoreOptions

/** The one documented order in which option values are resolved (first hit wins): the read or
 *  write option of the query, the session conf `spark.lamina.<key>`, the table's own option; the
 *  registry's default applies when none is set.
 *
 *  A session or a query may set only the options whose scope in the registry is per query (how a
 *  read or write runs); the options that define what the table holds (its keys, buckets, merge
 *  engine, file format, ...) belong to the table and change only through ALTER TABLE
 *  ([[CoreOptions.checkPerQuery]]). */
object OptionScopes {
  val SessionPrefix = "spark.lamina."

  /** Query option keys that are not Lamina options: Spark's own (`__...`; `versionAsOf` and
   *  `timestampAsOf`, which Spark turns into the time travel of `loadTable` and still hands to the
   *  scan) and Lamina's internal write options, set by its analysis rules. */
  private def passedThrough(key: String): Boolean =
    key.startsWith("__") || key.startsWith(MergeShapes.InternalOptionPrefix) || SparkQueryKeys.contains(key)

  /** Spark's own options of time travel and of streaming queries, which reach a table's options too. */
  private val SparkQueryKeys = Set("versionasof", "timestampasof", "checkpointlocation")

  /** The options the session and a query (`"read"` or `"write"` options) set for `table`, query first,
   *  each checked: an unknown key fails with the closest valid key, a key of the table's definition
   *  fails saying to use ALTER TABLE, a bad value fails naming the option. */
  def dynamic(table: String, queryOptions: Map[String, String], kind: String): Map[String, String] = {
    val session = SparkSession.getActiveSession.map(_.conf.getAll.collect {
      case (k, v) if k.startsWith(SessionPrefix) => k.stripPrefix(SessionPrefix) -> v
    }).getOrElse(Map.empty)
    session.foreach { case (k, v) => CoreOptions.checkPerQuery(table, k, v, s"the session conf '$SessionPrefix$k'") }
    // Spark hands read and write options over case-insensitively: a key takes the registry's spelling
    val query = queryOptions.map { case (k, v) => CoreOptions.canonicalKey(k.toLowerCase(java.util.Locale.ROOT)) -> v }
      .filterNot { case (k, _) => passedThrough(k) }
    query.foreach { case (k, v) => CoreOptions.checkPerQuery(table, k, v, s"a $kind option") }
    session ++ query
  }
}
