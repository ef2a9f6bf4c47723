package lamina.table.catalog

import org.apache.hadoop.conf.Configuration

import lamina.errors.BadInputException
import lamina.io.{FileIO, PathNames}
import lamina.table.Warehouse
import lamina.table.catalog.jdbc.JdbcMetastore

/** Builds the metastore a catalog's options choose (see [[MetastoreOptions]]). */
object Metastores {

  /** The metastore of catalog `catalog` (named in messages); the caller closes it. */
  def open(catalog: String, options: Map[String, String], conf: Configuration): Metastore = {
    val kind = MetastoreOptions.kind(catalog, options)
    MetastoreOptions.checkValues(catalog, kind, options)
    val warehouse = MetastoreOptions.get(options, MetastoreOptions.Warehouse).map(_.trim).filter(_.nonEmpty)
      .getOrElse(throw new BadInputException(s"Catalog '$catalog' needs the option 'warehouse': " +
          s"set spark.sql.catalog.$catalog.warehouse=PATH"))
    val fileIO = FileIO(conf)
    kind match {
      case MetastoreOptions.FileSystem => Warehouse(PathNames.of(warehouse), fileIO)
      case MetastoreOptions.Jdbc => JdbcMetastore.open(catalog, PathNames.of(warehouse), fileIO, options)
    }
  }
}
