package lamina.spark

import lamina.errors.BadInputException
import lamina.table.catalog.MetastoreOptions

/** The options of `spark.sql.catalog.<name>.*`: the metastore's (`warehouse`, `metastore` and what the
 *  chosen metastore reads, see [[MetastoreOptions]]) and `table-default.<key>` (a table option every
 *  CREATE TABLE of the catalog starts from, as in Paimon). Anything else would be silently ignored,
 *  so it is refused when the catalog is set up, naming the option. */
object CatalogOptions {
  val TableDefaultPrefix = "table-default."

  def check(catalog: String, options: Map[String, String]): Unit = {
    val kind = MetastoreOptions.kind(catalog, options)
    options.keys.foreach { k =>
      val key = k.toLowerCase
      val tableDefault = key.startsWith(TableDefaultPrefix) && key.length > TableDefaultPrefix.length
      if (!tableDefault && !MetastoreOptions.accepts(kind, key))
        throw new BadInputException(
          s"Catalog '$catalog': option '$k' is not supported (spark.sql.catalog.$catalog.$k) with " +
            s"metastore '${kind.name}'; the catalog takes '${MetastoreOptions.Warehouse}', " +
            s"'${MetastoreOptions.Metastore}' = ${MetastoreOptions.Kinds.map(_.name).mkString(" or ")}, " +
            s"'$TableDefaultPrefix<table option>', the storage options 's3.<key>' and 'hadoop.<key>'" + (kind match {
              case MetastoreOptions.Jdbc => ", 'uri', 'jdbc.<driver property>', 'catalog-key', 'client-pool-size', 'lock.*'"
              case MetastoreOptions.Hive => ", 'uri', 'hive-conf-dir', 'hadoop-conf-dir', 'metastore.client.class', " +
                  "'location-in-properties', 'client-pool-size', 'lock.*', 'hive.*', 'javax.jdo.*', 'datanucleus.*'"
              case MetastoreOptions.FileSystem =>
                " and, with metastore 'jdbc' or 'hive', 'uri' and the options docs/metastores.md lists"
            }))
    }
    MetastoreOptions.checkValues(catalog, kind, options)
  }

  /** The `table-default.` options, as table options. */
  def tableDefaults(options: Map[String, String]): Map[String, String] =
    options.collect { case (k, v) if k.toLowerCase.startsWith(TableDefaultPrefix) => k.substring(TableDefaultPrefix.length) -> v }
}
