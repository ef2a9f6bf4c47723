package lamina.spark

import org.apache.spark.sql.SparkSession

import lamina.errors.BadInputException
import lamina.lookup.LookupOptions
import lamina.mergetree.MergeTreeOptions
import lamina.table.options.{CoreOptions, LookupStoreOptions}

/** The one documented order in which option values are resolved (first hit wins): the read or
 *  write option of the query, the session conf `spark.lamina.<key>`, the table's own option; the
 *  registry's default applies when none is set.
 *
 *  A session or a query may set only the options that say how a read or write runs
 *  ([[PerQueryKeys]]); the options that define what the table holds (its keys, buckets, merge engine,
 *  file format, ...) belong to the table and change only through ALTER TABLE. */
object OptionScopes {
  val SessionPrefix = "spark.lamina."

  MergeTreeOptions.register()
  LookupStoreOptions.register()

  /** Options a session or a query may set. */
  val PerQueryKeys: Set[String] = Set(
    CoreOptions.TargetFileSize, CoreOptions.FileCompression, CoreOptions.FileCompressionZstdLevel,
    CoreOptions.ParquetWriterVersion, CoreOptions.StatsMode, CoreOptions.ManifestCompression,
    CoreOptions.ManifestTargetFileSize, CoreOptions.ManifestMergeMinCount, CoreOptions.CommitMaxRetries,
    CoreOptions.ScanSnapshotId, CoreOptions.ScanTimestampMillis).map(_.key) ++ {
    import lamina.mergetree.MergeTreeOptions._
    Set(WriteBufferSize, WriteBufferSpillable, WriteOnly, CompactionMaxSizeAmplificationPercent,
      CompactionSizeRatio, NumSortedRunCompactionTrigger, NumSortedRunStopTrigger).map(_.key)
  } ++ LookupOptions.definitions.map(_.key)

  /** Query option keys that are not Lamina options: Spark's own (`__...`) and Lamina's internal
   *  write options, set by its analysis rules. */
  private def passedThrough(key: String): Boolean =
    key.startsWith("__") || key.startsWith(MergeShapes.InternalOptionPrefix)

  /** The options the session and a query (`"read"` or `"write"` options) set for `table`, query first,
   *  each checked: an unknown key fails with the closest valid key, a key of the table's definition
   *  fails saying to use ALTER TABLE, a bad value fails naming the option. */
  def dynamic(table: String, queryOptions: Map[String, String], kind: String): Map[String, String] = {
    val session = SparkSession.getActiveSession.map(_.conf.getAll.collect {
      case (k, v) if k.startsWith(SessionPrefix) => k.stripPrefix(SessionPrefix) -> v
    }).getOrElse(Map.empty)
    session.foreach { case (k, v) => check(table, k, v, s"the session conf '$SessionPrefix$k'") }
    val query = queryOptions.map { case (k, v) => k.toLowerCase(java.util.Locale.ROOT) -> v }
      .filterNot { case (k, _) => passedThrough(k) }
    query.foreach { case (k, v) => check(table, k, v, s"a $kind option") }
    session ++ query
  }

  private def check(table: String, key: String, value: String, where: String): Unit =
    CoreOptions.find(key) match {
      case Some(d) if PerQueryKeys.contains(key) => d.parseOrFail(value)
      case Some(_) =>
        throw new BadInputException(s"Option '$key' of table $table cannot be set by $where: it is part of the " +
          s"table's definition; change it with ALTER TABLE $table SET TBLPROPERTIES ('$key' = '...')")
      case None =>
        val hint = CoreOptions.suggest(key).map(s => s"; did you mean '$s'?").getOrElse("")
        throw new BadInputException(s"Unknown option '$key' set by $where for table $table$hint")
    }
}
