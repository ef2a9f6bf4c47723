package lamina.spark

import lamina.errors.BadInputException

/** The options of `spark.sql.catalog.<name>.*`: `warehouse` (required), `metastore` (only
 *  `filesystem`, the one Lamina implements) and `table-default.<key>` (a table option every CREATE
 *  TABLE of the catalog starts from, as in Paimon). Anything else (`metastore = hive`, `uri`, ...)
 *  would be silently ignored, so it is refused when the catalog is set up, naming the option. */
object CatalogOptions {
  val Warehouse = "warehouse"
  val Metastore = "metastore"
  val TableDefaultPrefix = "table-default."

  def check(catalog: String, options: Map[String, String]): Unit =
    options.foreach { case (k, v) =>
      k.toLowerCase match {
        case Warehouse =>
        case Metastore if v.trim.equalsIgnoreCase("filesystem") =>
        case Metastore =>
          throw new BadInputException(
            s"Catalog '$catalog': metastore '$v' is not supported; Lamina's catalog is a filesystem warehouse " +
              s"(remove spark.sql.catalog.$catalog.$k or set it to 'filesystem')")
        case key if key.startsWith(TableDefaultPrefix) && key.length > TableDefaultPrefix.length =>
        case _ =>
          throw new BadInputException(
            s"Catalog '$catalog': option '$k' is not supported (spark.sql.catalog.$catalog.$k); the catalog takes " +
              s"'$Warehouse', '$Metastore' = 'filesystem' and '$TableDefaultPrefix<table option>'")
      }
    }

  /** The `table-default.` options, as table options. */
  def tableDefaults(options: Map[String, String]): Map[String, String] =
    options.collect { case (k, v) if k.toLowerCase.startsWith(TableDefaultPrefix) => k.substring(TableDefaultPrefix.length) -> v }
}
