package lamina.table.catalog.jdbc

import java.sql.{Connection, SQLException}

import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException, StorageException}
import lamina.io.FileIO
import lamina.table.FileStoreTable
import lamina.table.branch.BranchManager
import lamina.table.catalog.{Metastore, MetastoreOptions, TableFiles, TableProperties}
import lamina.table.commit.CommitLock
import lamina.table.schema.{SchemaChange, TableSchema}

/** The JDBC metastore (`metastore=jdbc`): databases and tables are rows of Paimon's JDBC catalog
 *  tables ([[JdbcTables]]) under one `catalog-key`; each table's schemas, snapshots and data stay in
 *  files at `<warehouse>/<db>.db/<table>` as with the filesystem metastore.
 *
 *  The row decides what exists, and the database's primary keys decide races:
 *  - create table inserts the row first (two creators of one name: one insert wins, the other gets
 *    `AlreadyExistsException` and touches no file), then writes schema-0; when the schema cannot be
 *    written the row is deleted again. A process killed between the two leaves a row without schema
 *    files: loading it says so, and DROP TABLE removes it. (Paimon writes the files first and deletes
 *    the directory when the insert loses, which can delete the winner's files.)
 *  - rename updates the row (the primary key refuses an existing target), then moves the directory,
 *    as Paimon does for managed tables; a failed move puts the row back;
 *  - drop deletes the row, then the directory.
 *  With `lock.enabled`, tables come with a [[JdbcCommitLock]] held around each snapshot commit and
 *  around ALTER TABLE's schema commit. With `sync-all-properties`, `paimon_table_properties` holds each
 *  table's [[TableProperties]]: written with the row, replaced after each ALTER TABLE of the main
 *  branch (in one transaction), renamed and deleted with the row.
 *
 *  A statement the database does not carry out (the server unreachable, or gone mid-statement) fails
 *  the operation with a [[JdbcFailure]] naming it, the catalog and the `uri`; the order of the steps
 *  above leaves no row without its table's files, nor files without a row, except where noted. A
 *  connection the driver found broken is closed by it and replaced on next use ([[JdbcConnections]]). */
final class JdbcMetastore private (catalog: String, uri: String, val root: Path, val fileIO: FileIO,
    catalogKey: String, connections: JdbcConnections, lock: CommitLock, syncAll: Boolean)
  extends Metastore {

  def listDatabases(): Seq[String] = reporting("list the databases") {
    (strings(JdbcTables.ListTableDatabases, catalogKey) ++ strings(JdbcTables.ListPropertyDatabases, catalogKey))
      .distinct.sorted
  }

  def databaseExists(db: String): Boolean = reporting(s"look up database $db")(hasDatabase(db))

  private def hasDatabase(db: String): Boolean = {
    databasePath(db)
    strings(JdbcTables.PropertyDatabase, catalogKey, db).nonEmpty ||
    strings(JdbcTables.TableDatabase, catalogKey, db).nonEmpty
  }

  def createDatabase(db: String, properties: Map[String, String]): Unit = reporting(s"create database $db") {
    if (hasDatabase(db)) throw new AlreadyExistsException(s"Database $db already exists")
    val props = Seq(JdbcTables.ExistsProperty -> "true", Metastore.LocationProperty -> databasePath(db).toString) ++
      properties.removed(JdbcTables.ExistsProperty).removed(Metastore.LocationProperty).toSeq.sortBy(_._1)
    val args = props.flatMap { case (k, v) => Seq(catalogKey, db, k, v) }
    insertOrAlreadyExists(s"Database $db already exists", hasDatabase(db)) {
      update(JdbcTables.insertDatabaseProperties(props.size), args: _*)
    }
  }

  def databaseProperties(db: String): Map[String, String] = reporting(s"read the properties of database $db") {
    if (!hasDatabase(db)) throw new NotFoundException(s"Database $db does not exist")
    val props = connections.run { c =>
      Statements.query(c, JdbcTables.DatabasePropertiesOf, catalogKey, db) { rs => rs.getString(1) -> rs.getString(2) }
    }.toMap
    Map(Metastore.LocationProperty -> databasePath(db).toString) ++ props.removed(JdbcTables.ExistsProperty)
  }

  /** Drops every table of `db` (rows and directories), then the database's rows and directory. Paimon's
   *  JDBC catalog deletes only the rows and leaves the table files behind. */
  def dropDatabase(db: String): Unit = reporting(s"drop database $db") {
    tables(db).foreach(dropRowAndFiles(db, _))
    update(JdbcTables.DeleteDatabaseTableProperties, catalogKey, db)
    update(JdbcTables.DeleteDatabaseTables, catalogKey, db)
    update(JdbcTables.DeleteDatabaseProperties, catalogKey, db)
    if (fileIO.exists(databasePath(db))) fileIO.deleteDirectory(databasePath(db))
  }

  def listTables(db: String): Seq[String] = reporting(s"list the tables of database $db")(tables(db))

  private def tables(db: String): Seq[String] = {
    databasePath(db)
    strings(JdbcTables.ListTables, catalogKey, db)
  }

  def tableExists(db: String, table: String): Boolean = reporting(s"look up table $db.$table")(hasTable(db, table))

  private def hasTable(db: String, table: String): Boolean = {
    tablePath(db, table)
    strings(JdbcTables.GetTable, catalogKey, db, table).nonEmpty
  }

  def loadTable(db: String, table: String): FileStoreTable = reporting(s"load table $db.$table") {
    val name = s"$db.$table"
    if (!hasTable(db, table)) throw new NotFoundException(s"Table $name does not exist")
    TableFiles.loadRegistered(fileIO, tablePath(db, table), name, s"the JDBC catalog '$catalogKey'", lock)
  }

  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable = reporting(s"create table $db.$table") {
    val name = s"$db.$table"
    val path = tablePath(db, table)
    if (!hasDatabase(db)) throw new NotFoundException(s"Database $db does not exist")
    insertOrAlreadyExists(s"Table $name already exists", hasTable(db, table)) {
      update(JdbcTables.InsertTable, catalogKey, db, table)
    }
    try {
      if (syncAll) replaceProperties(db, table, schema)
      TableFiles.create(fileIO, path, name, schema).copy(commitLock = lock)
    } catch {
      case e: Throwable =>
        try {
          update(JdbcTables.DeleteTableProperties, catalogKey, db, table)
          update(JdbcTables.DeleteTable, catalogKey, db, table)
        } catch { case d: Throwable => e.addSuppressed(d) }
        throw e
    }
  }

  def dropTable(db: String, table: String): Boolean = reporting(s"drop table $db.$table")(dropRowAndFiles(db, table))

  private def dropRowAndFiles(db: String, table: String): Boolean = {
    val path = tablePath(db, table)
    update(JdbcTables.DeleteTableProperties, catalogKey, db, table)
    update(JdbcTables.DeleteTable, catalogKey, db, table) > 0 && {
      TableFiles.delete(fileIO, path, s"$db.$table")
      true
    }
  }

  def renameTable(fromDb: String, from: String, toDb: String, to: String): Unit =
    reporting(s"rename table $fromDb.$from to $toDb.$to") {
      val src = tablePath(fromDb, from)
      val dst = tablePath(toDb, to)
      if (!hasDatabase(toDb)) throw new NotFoundException(s"Database $toDb does not exist")
      val renamed = insertOrAlreadyExists(s"Table $toDb.$to already exists", hasTable(toDb, to)) {
        update(JdbcTables.RenameTable, toDb, to, catalogKey, fromDb, from)
      }
      if (renamed == 0) throw new NotFoundException(s"Table $fromDb.$from does not exist")
      update(JdbcTables.RenameTableProperties, toDb, to, catalogKey, fromDb, from)
      if (TableFiles.hasSchema(fileIO, src, s"$fromDb.$from")) {
        try TableFiles.move(fileIO, src, dst, s"$fromDb.$from")
        catch {
          case e: StorageException =>
            try {
              update(JdbcTables.RenameTable, fromDb, from, catalogKey, toDb, to)
              update(JdbcTables.RenameTableProperties, fromDb, from, catalogKey, toDb, to)
            } catch { case d: Throwable => e.addSuppressed(d) }
            throw e
        }
      }
    }

  override def alterTable(table: FileStoreTable, changes: Seq[SchemaChange]): TableSchema = {
    val schema = lock.runWithLock(table.baseName)(super.alterTable(table, changes))
    if (syncAll && table.branch == BranchManager.Main) {
      val Array(db, name) = table.baseName.split("\\.", 2)
      try replaceProperties(db, name, schema)
      catch {
        case e: SQLException =>
          throw new StorageException("write the properties of", table.baseName,
            s"schema ${schema.id} is committed " +
              s"to the table's files, but ${JdbcTables.TableProperties} of catalog '$catalog' at $uri still holds the " +
              s"previous properties; the next ALTER TABLE writes them again (${e.getMessage})", e)
      }
    }
    schema
  }

  /** The table's rows of `paimon_table_properties`: `schema`'s properties, replaced in one transaction. */
  private def replaceProperties(db: String, table: String, schema: TableSchema): Unit = {
    val props = TableProperties.of(schema).toSeq.sortBy(_._1)
    connections.run { c =>
      c.setAutoCommit(false)
      try {
        Statements.update(c, JdbcTables.DeleteTableProperties, catalogKey, db, table)
        if (props.nonEmpty)
          Statements.update(c, JdbcTables.insertTableProperties(props.size),
            props.flatMap { case (k, v) => Seq(catalogKey, db, table, k, v) }: _*)
        c.commit()
      } catch {
        case e: SQLException =>
          try c.rollback()
          catch { case r: SQLException => e.addSuppressed(r) }
          throw e
      } finally if (!c.isClosed) c.setAutoCommit(true)
    }
  }

  override def close(): Unit = connections.close()

  private def reporting[T](what: => String)(body: => T): T = JdbcFailure.reporting(catalog, uri, what)(body)

  /** Runs a write that a primary key may refuse: when it fails and `exists` then holds, another writer
   *  won the name, reported as `AlreadyExistsException(message)`; any other failure is rethrown (when
   *  `exists` itself fails, its failure, carrying the write's). */
  private def insertOrAlreadyExists[T](message: String, exists: => Boolean)(write: => T): T =
    try write
    catch {
      case e: SQLException =>
        val taken =
          try exists
          catch { case d: SQLException => d.addSuppressed(e); throw d }
        if (taken) throw new AlreadyExistsException(message, e) else throw e
    }

  private def strings(sql: String, args: String*): Seq[String] =
    connections.run(Statements.query(_, sql, args: _*)(_.getString(1)))

  private def update(sql: String, args: String*): Int = connections.run(Statements.update(_, sql, args: _*))
}

object JdbcMetastore {

  /** Connects to `options`' `uri` and creates Paimon's catalog tables where they are missing. */
  def open(catalog: String, root: Path, fileIO: FileIO, options: Map[String, String]): JdbcMetastore = {
    val uri = MetastoreOptions.get(options, MetastoreOptions.Uri).get.trim
    val key = MetastoreOptions.get(options, MetastoreOptions.CatalogKey).map(_.trim).filter(_.nonEmpty)
      .getOrElse(MetastoreOptions.DefaultCatalogKey)
    val connections = new JdbcConnections(uri, MetastoreOptions.driverProperties(options),
      MetastoreOptions.clientPoolSize(catalog, options))
    val lock =
      if (!MetastoreOptions.lockEnabled(catalog, options, Option(root.toUri.getScheme))) CommitLock.Unlocked
      else JdbcCommitLock(catalog, uri, MetastoreOptions.driverProperties(options), key,
        MetastoreOptions.lockMillis(catalog, options, MetastoreOptions.LockAcquireTimeout,
          MetastoreOptions.DefaultLockAcquireTimeout),
        MetastoreOptions.lockMillis(catalog, options, MetastoreOptions.LockCheckMaxSleep,
          MetastoreOptions.DefaultLockCheckMaxSleep))
    val tables = JdbcTables.Create ++
      (if (lock == CommitLock.Unlocked) Nil else Seq(JdbcCommitLock.Table -> JdbcCommitLock.Create))
    try {
      connections.run(createMissingTables(_, tables))
      new JdbcMetastore(catalog, uri, root, fileIO, key, connections, lock,
        MetastoreOptions.flag(catalog, options, MetastoreOptions.SyncAllProperties, default = false))
    } catch {
      case e: SQLException =>
        connections.close()
        throw new BadInputException(s"Catalog '$catalog': cannot open the JDBC catalog at '$uri' " +
            s"(option '${MetastoreOptions.Uri}'): ${e.getMessage}", e)
    }
  }

  /** Creates each of Paimon's tables that does not exist; another process creating it at the same time
   *  is not an error. */
  private def createMissingTables(c: Connection, tables: Seq[(String, String)]): Unit =
    tables.foreach { case (table, ddl) =>
      def exists: Boolean = {
        val rs = c.getMetaData.getTables(null, null, table, null)
        try rs.next()
        finally rs.close()
      }
      if (!exists) {
        val s = c.createStatement()
        try s.execute(ddl)
        catch { case e: SQLException if exists => }
        finally s.close()
      }
    }
}
