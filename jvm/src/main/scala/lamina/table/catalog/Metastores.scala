package lamina.table.catalog

import org.apache.hadoop.conf.Configuration

import lamina.errors.BadInputException
import lamina.io.{FileIO, PathNames, StorageConf}
import lamina.table.Warehouse
import lamina.table.catalog.hive.HiveMetastore
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
    val fileIO = FileIO(StorageConf(new Configuration(conf), options))
    kind match {
      case MetastoreOptions.FileSystem => Warehouse(PathNames.of(warehouse), fileIO)
      case MetastoreOptions.Jdbc => JdbcMetastore.open(catalog, PathNames.of(warehouse), fileIO, options)
      case MetastoreOptions.Hive =>
        requireHiveClasses(catalog)
        HiveMetastore.open(catalog, PathNames.of(warehouse), fileIO, options, fileIO.hadoopConf)
    }
  }

  /** The Hive metastore client comes with Spark's distribution (its Hive 2.3 jars), not with Lamina. */
  private def requireHiveClasses(catalog: String): Unit =
    try Class.forName("org.apache.hadoop.hive.metastore.HiveMetaStoreClient", false, getClass.getClassLoader)
    catch {
      case e: ClassNotFoundException =>
        throw new BadInputException(
          s"Catalog '$catalog': metastore 'hive' needs Hive's metastore client " +
            "(hive-metastore and hive-exec 2.3 jars, which Spark's distribution and PySpark ship); it is not on the " +
            "class path of this Spark", e)
    }
}
