package lamina.table.catalog

import lamina.errors.BadInputException
import lamina.io.{AtomicCreate, StorageConf}
import lamina.table.options.OptionKind.DurationKind

/** The catalog options a metastore reads, by Paimon 1.4's keys (`spark.sql.catalog.<name>.<key>`):
 *
 *  | key                 | metastore  | type   | default | meaning                                         |
 *  |---------------------|------------|--------|---------|-------------------------------------------------|
 *  | `metastore`         | all        | enum   | filesystem | `filesystem`, `jdbc` or `hive`               |
 *  | `warehouse`         | all        | path   | required | root of `<db>.db/<table>` directories          |
 *  | `uri`               | jdbc, hive | string | required for jdbc | `jdbc:sqlite:<file>`, `jdbc:postgresql://...`; `thrift://host:9083` (empty: an embedded Hive metastore) |
 *  | `jdbc.<prop>`       | jdbc       | string |         | driver property `<prop>` (user, password, ...)  |
 *  | `catalog-key`       | jdbc       | string | jdbc    | the `catalog_key` column: catalogs sharing a database |
 *  | `client-pool-size`  | jdbc, hive | int    | 2       | connections (clients) kept open                 |
 *  | `hive-conf-dir`     | hive       | path   | `$HIVE_CONF_DIR` | directory of the `hive-site.xml` to read |
 *  | `hadoop-conf-dir`   | hive       | path   |         | directory of `core-site.xml`/`hdfs-site.xml` to read |
 *  | `metastore.client.class` | hive  | class  | HiveMetaStoreClient | the metastore client to use         |
 *  | `location-in-properties` | hive  | bool   | false   | table locations in the `paimon_location` parameter |
 *  | `hive.*`, `javax.jdo.*`, `datanucleus.*` | hive | string | | set in the metastore client's configuration |
 *  | `lock.enabled`      | jdbc, hive | bool   | true on object stores | a lock held around each commit     |
 *  | `lock-acquire-timeout` | jdbc, hive | duration | 8 min | how long a commit waits for the lock; also how long a dead holder blocks (jdbc) |
 *  | `lock-check-max-sleep` | jdbc, hive | duration | 8 s | the longest sleep between two attempts to take the lock |
 *  | `sync-all-properties` | jdbc, hive | bool | false   | every table option in the metastore's table properties |
 *
 *  A key a metastore does not read is refused, naming it, rather than silently ignored. */
object MetastoreOptions {
  val Metastore = "metastore"
  val Warehouse = "warehouse"
  val Uri = "uri"
  val JdbcPrefix = "jdbc."
  val CatalogKey = "catalog-key"
  val ClientPoolSize = "client-pool-size"
  val LockEnabled = "lock.enabled"
  val LockAcquireTimeout = "lock-acquire-timeout"
  val LockCheckMaxSleep = "lock-check-max-sleep"
  val SyncAllProperties = "sync-all-properties"
  val HiveConfDir = "hive-conf-dir"
  val HadoopConfDir = "hadoop-conf-dir"
  val MetastoreClientClass = "metastore.client.class"
  val LocationInProperties = "location-in-properties"
  val HivePassThroughPrefixes = Seq("hive.", "javax.jdo.", "datanucleus.")
  val DefaultMetastoreClientClass = "org.apache.hadoop.hive.metastore.HiveMetaStoreClient"

  val DefaultCatalogKey = "jdbc"
  val DefaultClientPoolSize = 2

  sealed abstract class Kind(val name: String)
  case object FileSystem extends Kind("filesystem")
  case object Jdbc extends Kind("jdbc")
  case object Hive extends Kind("hive")
  val Kinds: Seq[Kind] = Seq(FileSystem, Jdbc, Hive)

  private val JdbcKeys = Set(Uri, CatalogKey, ClientPoolSize, LockEnabled, LockAcquireTimeout, LockCheckMaxSleep,
    SyncAllProperties)
  private val HiveKeys = Set(Uri, ClientPoolSize, LockEnabled, LockAcquireTimeout, LockCheckMaxSleep, SyncAllProperties,
    HiveConfDir, HadoopConfDir, MetastoreClientClass, LocationInProperties)

  /** Paimon's defaults. */
  val DefaultLockAcquireTimeout = "8 min"
  val DefaultLockCheckMaxSleep = "8 s"

  /** The metastore `options` choose; `catalog` names the catalog in messages. */
  def kind(catalog: String, options: Map[String, String]): Kind = {
    val v = get(options, Metastore).map(_.trim.toLowerCase).getOrElse(FileSystem.name)
    Kinds.find(_.name == v).getOrElse {
      throw new BadInputException(s"Catalog '$catalog': metastore '$v' is not supported (unknown metastore); " +
        s"set spark.sql.catalog.$catalog.$Metastore to one of ${Kinds.map(_.name).mkString(", ")}")
    }
  }

  /** Whether `key` (lower case) is a metastore option of `kind`. */
  def accepts(kind: Kind, key: String): Boolean = key == Metastore || key == Warehouse ||
    StorageConf.isStorageOption(key) || (kind match {
      case FileSystem => false
      case Jdbc => JdbcKeys(key) || key.startsWith(JdbcPrefix) && key.length > JdbcPrefix.length
      case Hive => HiveKeys(key) || HivePassThroughPrefixes.exists(p => key.startsWith(p) && key.length > p.length)
    })

  /** Checks the values of the options `kind` reads; keys are checked by the caller with [[accepts]]. */
  def checkValues(catalog: String, kind: Kind, options: Map[String, String]): Unit = kind match {
    case FileSystem =>
    case Jdbc =>
      val uri = get(options, Uri).map(_.trim).filter(_.nonEmpty).getOrElse(throw new BadInputException(
          s"Catalog '$catalog': metastore 'jdbc' needs the option '$Uri' " +
            s"(spark.sql.catalog.$catalog.$Uri=jdbc:sqlite:/path/catalog.db or jdbc:postgresql://host/db)"))
      if (!uri.startsWith("jdbc:"))
        throw new BadInputException(s"Catalog '$catalog': option '$Uri' must be a JDBC URL starting with 'jdbc:', not '$uri'")
      val pool = clientPoolSize(catalog, options)
      if (pool > 1 && isSqliteMemory(uri))
        throw new BadInputException(s"Catalog '$catalog': option '$Uri' = '$uri' is an in-memory SQLite database, " +
          s"which is a different database on each of the $pool pooled connections; use a file " +
          s"(jdbc:sqlite:/path/catalog.db) or set '$ClientPoolSize' to 1")
      checkLockOptions(catalog, options)
      flag(catalog, options, SyncAllProperties, default = false)
    case Hive =>
      checkLockOptions(catalog, options)
      flag(catalog, options, SyncAllProperties, default = false)
      flag(catalog, options, LocationInProperties, default = false)
      clientPoolSize(catalog, options)
      get(options, Uri).map(_.trim).filter(_.nonEmpty).foreach { uri =>
        if (!uri.split(",").forall(_.trim.startsWith("thrift://")))
          throw new BadInputException(s"Catalog '$catalog': option '$Uri' of metastore 'hive' must be thrift://host:port " +
            s"(several separated by commas), not '$uri'; leave it out for an embedded metastore")
      }
  }

  private def checkLockOptions(catalog: String, options: Map[String, String]): Unit = {
    flag(catalog, options, LockEnabled, default = false)
    lockMillis(catalog, options, LockAcquireTimeout, DefaultLockAcquireTimeout)
    lockMillis(catalog, options, LockCheckMaxSleep, DefaultLockCheckMaxSleep)
  }

  /** Whether commits take the metastore's lock: `lock.enabled`, by default on for a warehouse on an
   *  object store (`warehouseScheme`), as in Paimon. */
  def lockEnabled(catalog: String, options: Map[String, String], warehouseScheme: Option[String]): Boolean =
    flag(catalog, options, LockEnabled, default = warehouseScheme.exists(s => AtomicCreate.ObjectStoreSchemes(s.toLowerCase)))

  /** A boolean option: true or false, any case. */
  def flag(catalog: String, options: Map[String, String], key: String, default: Boolean): Boolean =
    get(options, key).map(_.trim.toLowerCase) match {
      case None => default
      case Some("false") => false
      case Some("true") => true
      case Some(v) => throw new BadInputException(s"Catalog '$catalog': option '$key' must be true or false, not '$v'")
    }

  /** A lock duration in milliseconds, at least 1. */
  def lockMillis(catalog: String, options: Map[String, String], key: String, default: String): Long = {
    val v = get(options, key).getOrElse(default)
    DurationKind.parse(v).toOption.filter(_ > 0).getOrElse(throw new BadInputException(
        s"Catalog '$catalog': option '$key' must be a positive duration such as $default, not '$v'"))
  }

  def clientPoolSize(catalog: String, options: Map[String, String]): Int =
    get(options, ClientPoolSize).map { v =>
      v.trim.toIntOption.filter(_ > 0).getOrElse(throw new BadInputException(
          s"Catalog '$catalog': option '$ClientPoolSize' must be a positive integer, not '$v'"))
    }.getOrElse(DefaultClientPoolSize)

  /** `jdbc:sqlite::memory:`, `jdbc:sqlite:` (no file) and `file::memory:` URLs: one database per connection. */
  def isSqliteMemory(uri: String): Boolean = {
    val u = uri.trim.toLowerCase
    u.startsWith("jdbc:sqlite:") && {
      val rest = u.stripPrefix("jdbc:sqlite:")
      rest.isEmpty || rest.startsWith(":memory:") || rest.contains("mode=memory") || rest.startsWith("file::memory:")
    }
  }

  /** The `jdbc.<prop>` options, without the prefix. */
  def driverProperties(options: Map[String, String]): Map[String, String] =
    options.collect { case (k, v) if k.toLowerCase.startsWith(JdbcPrefix) => k.substring(JdbcPrefix.length) -> v }

  def get(options: Map[String, String], key: String): Option[String] =
    options.collectFirst { case (k, v) if k.equalsIgnoreCase(key) => v }
}
