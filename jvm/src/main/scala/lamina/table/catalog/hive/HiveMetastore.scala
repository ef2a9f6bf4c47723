package lamina.table.catalog.hive

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hive.metastore.IMetaStoreClient
import org.apache.hadoop.hive.metastore.api.{Database, NoSuchObjectException, AlreadyExistsException => HiveAlreadyExists}
import org.apache.hadoop.security.UserGroupInformation

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException, StorageException}
import lamina.io.{FileIO, PathNames}
import lamina.table.FileStoreTable
import lamina.table.branch.BranchManager
import lamina.table.catalog.{Metastore, MetastoreOptions, TableFiles}
import lamina.table.commit.CommitLock
import lamina.table.schema.{SchemaChange, TableSchema}

/** The Hive metastore (`metastore=hive`): databases and tables are the metastore's, each table
 *  registered as Paimon registers it ([[HiveTableRegistration]]), its schemas, snapshots and data in
 *  files at its location (`<warehouse>/<db>.db/<table>` for the tables Lamina creates). Tables of the
 *  metastore that are not Paimon tables are not listed, and are refused by name.
 *
 *  As with the JDBC metastore, the registration decides races:
 *  - create table registers it first (the metastore refuses a second registration of a name, so one of
 *    two creators wins and the other touches no file), then writes schema-0; when that fails the
 *    registration is dropped. A process killed between the two leaves a registration without schema
 *    files: loading it says so, and DROP TABLE removes it;
 *  - rename renames the registration (the metastore moves a managed table's directory when it is under
 *    its warehouse), then moves the directory where the metastore did not and records the new location;
 *  - drop drops the registration, then the directory;
 *  - ALTER TABLE commits the schema file (under the commit lock), then copies the columns and synced
 *    options into the registration; when that copy fails the schema stays committed and the error says
 *    so (the files are the table's definition).
 *  With `lock.enabled`, tables come with a [[HiveCommitLock]]. */
final class HiveMetastore private (val root: Path, val fileIO: FileIO, clients: HiveClients, lock: CommitLock,
    locationInProperties: Boolean, syncAll: Boolean, describe: String)
  extends Metastore {

  def listDatabases(): Seq[String] = call("list databases")(_.getAllDatabases.asScala.toSeq.sorted)

  def databaseExists(db: String): Boolean = {
    databasePath(db)
    database(db).isDefined
  }

  def createDatabase(db: String, properties: Map[String, String]): Unit = {
    val d = new Database()
    d.setName(db)
    d.setLocationUri(databasePath(db).toString)
    val params = new java.util.HashMap[String, String]()
    properties.foreach {
      case (HiveMetastore.CommentProperty, v) => d.setDescription(v)
      case (HiveMetastore.OwnerProperty, v) => d.setOwnerName(v)
      case (Metastore.LocationProperty, _) =>
      case (k, v) => params.put(k, v)
    }
    if (locationInProperties) {
      params.put(HiveTableRegistration.LocationParam, databasePath(db).toString)
      d.setLocationUri(null)
      fileIO.mkdirs(databasePath(db))
    }
    d.setParameters(params)
    try call(s"create database $db")(_.createDatabase(d))
    catch { case e: HiveAlreadyExists => throw new AlreadyExistsException(s"Database $db already exists", e) }
  }

  def databaseProperties(db: String): Map[String, String] = {
    val d = database(db).getOrElse(throw new NotFoundException(s"Database $db does not exist"))
    Option(d.getParameters).map(_.asScala.toMap).getOrElse(Map.empty).removed(HiveTableRegistration.LocationParam) ++
      Option(d.getDescription).map(HiveMetastore.CommentProperty -> _) ++
      Option(d.getOwnerName).map(HiveMetastore.OwnerProperty -> _) +
      (Metastore.LocationProperty -> databasePath(db).toString)
  }

  /** Drops every Paimon table of `db` (registrations and directories), then the database with whatever
   *  else the metastore holds in it. */
  def dropDatabase(db: String): Unit = {
    listTables(db).foreach(dropTable(db, _))
    try call(s"drop database $db")(_.dropDatabase(db, true, true, true))
    catch { case _: NoSuchObjectException => }
    if (fileIO.exists(databasePath(db))) fileIO.deleteDirectory(databasePath(db))
  }

  def listTables(db: String): Seq[String] = {
    databasePath(db)
    call(s"list the tables of database $db") { c =>
      val names = c.getAllTables(db).asScala.toSeq
      names.grouped(HiveMetastore.TableBatch).flatMap(batch => c.getTableObjectsByName(db, batch.asJava).asScala)
        .filter(HiveTableRegistration.isPaimonTable).map(_.getTableName).toSeq.sorted
    }
  }

  def tableExists(db: String, table: String): Boolean = {
    tablePath(db, table)
    registration(db, table).exists(HiveTableRegistration.isPaimonTable)
  }

  def loadTable(db: String, table: String): FileStoreTable = {
    val name = s"$db.$table"
    TableFiles.loadRegistered(fileIO, location(db, table), name, s"the Hive metastore ($describe)", lock)
  }

  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable = {
    val name = s"$db.$table"
    val path = tablePath(db, table)
    if (!databaseExists(db)) throw new NotFoundException(s"Database $db does not exist")
    registration(db, table).foreach { t =>
      if (HiveTableRegistration.isPaimonTable(t)) throw new AlreadyExistsException(s"Table $name already exists")
      throw new BadInputException(s"Table $name already exists in the Hive metastore ($describe), and is not a " +
        "Paimon table: choose another name")
    }
    val t = HiveTableRegistration.create(db, table, HiveMetastore.currentUser(), schema, path.toString,
      locationInProperties, syncAll)
    // the directory first: a metastore that makes it deletes it again when its own create fails, which
    // would delete the files of a creator that won the name meanwhile
    val madeDir = !fileIO.exists(path)
    fileIO.mkdirs(path)
    try call(s"register table $name")(_.createTable(t))
    catch {
      case e: Exception if e.isInstanceOf[HiveAlreadyExists] || exists(registration(db, table)) =>
        throw new AlreadyExistsException(s"Table $name already exists", e)
      case e: Exception =>
        // not registered: the directory made for it goes too, unless another creator has written to it
        try if (madeDir && fileIO.listDirectory(path).isEmpty) fileIO.deleteDirectory(path)
        catch { case d: Exception => e.addSuppressed(d) }
        throw e
    }
    try TableFiles.create(fileIO, path, name, schema).copy(commitLock = lock)
    catch {
      case e: Throwable =>
        try call(s"drop table $name")(_.dropTable(db, table, false, true))
        catch { case d: Throwable => e.addSuppressed(d) }
        throw e
    }
  }

  def dropTable(db: String, table: String): Boolean = {
    tablePath(db, table)
    registration(db, table).filter(HiveTableRegistration.isPaimonTable).exists { t =>
      val path = HiveTableRegistration.location(t).map(PathNames.of(_)).getOrElse(tablePath(db, table))
      try call(s"drop table $db.$table")(_.dropTable(db, table, true, false, true))
      catch { case _: NoSuchObjectException => }
      TableFiles.delete(fileIO, path, s"$db.$table")
      true
    }
  }

  def renameTable(fromDb: String, from: String, toDb: String, to: String): Unit = {
    tablePath(fromDb, from)
    val dst = tablePath(toDb, to)
    if (!databaseExists(toDb)) throw new NotFoundException(s"Database $toDb does not exist")
    if (registration(toDb, to).isDefined) throw new AlreadyExistsException(s"Table $toDb.$to already exists")
    val t = registration(fromDb, from).filter(HiveTableRegistration.isPaimonTable)
      .getOrElse(throw new NotFoundException(s"Table $fromDb.$from does not exist"))
    val src = HiveTableRegistration.location(t).map(PathNames.of(_)).getOrElse(tablePath(fromDb, from))
    t.setDbName(toDb)
    t.setTableName(to)
    try call(s"rename table $fromDb.$from to $toDb.$to")(_.alter_table(fromDb, from, t))
    catch {
      case e: org.apache.hadoop.hive.metastore.api.InvalidOperationException if registration(toDb, to).isDefined =>
        throw new AlreadyExistsException(s"Table $toDb.$to already exists", e)
    }
    val moved = registration(toDb, to).getOrElse(t)
    if (TableFiles.hasSchema(fileIO, src, s"$fromDb.$from") && fileIO.fs(src).makeQualified(src) !=
        fileIO.fs(dst).makeQualified(dst)) {
      try TableFiles.move(fileIO, src, dst, s"$fromDb.$from")
      catch {
        case e: StorageException =>
          t.setDbName(fromDb)
          t.setTableName(from)
          try call(s"rename table $toDb.$to back to $fromDb.$from")(_.alter_table(toDb, to, t))
          catch { case d: Throwable => e.addSuppressed(d) }
          throw e
      }
    }
    if (!HiveTableRegistration.location(moved).contains(dst.toString)) {
      HiveTableRegistration.update(moved, TableFiles.load(fileIO, dst, s"$toDb.$to").schema, Set.empty, dst.toString,
        locationInProperties, syncAll)
      call(s"record the location of table $toDb.$to")(_.alter_table(toDb, to, moved))
    }
  }

  override def alterTable(table: FileStoreTable, changes: Seq[SchemaChange]): TableSchema = {
    val schema = lock.runWithLock(table.baseName)(super.alterTable(table, changes))
    val (db, name) = HiveMetastore.split(table.baseName)
    if (table.branch == BranchManager.Main) {
      val removed = changes.collect { case SchemaChange.RemoveOption(k) => k }.toSet
      try {
        val t = registration(db, name).getOrElse(throw new NotFoundException(s"Table $db.$name does not exist"))
        HiveTableRegistration.update(t, schema, removed,
          HiveTableRegistration.location(t).getOrElse(
            tablePath(db, name).toString), locationInProperties, syncAll)
        call(s"alter table $db.$name")(_.alter_table(db, name, t))
      } catch {
        case e: Exception =>
          throw new StorageException("copy the columns of", s"$db.$name",
            s"schema ${schema.id} is committed to the " +
              s"table's files, but the Hive metastore ($describe) still shows the previous columns; the next ALTER " +
              s"TABLE copies them again (${e.getMessage})", e)
      }
    }
    schema
  }

  override def close(): Unit = clients.close()

  private def location(db: String, table: String): Path = {
    val t = registration(db, table).getOrElse(throw new NotFoundException(s"Table $db.$table does not exist"))
    if (!HiveTableRegistration.isPaimonTable(t))
      throw new NotFoundException(s"Table $db.$table of the Hive metastore is not a Paimon table " +
        s"(its input format is ${Option(t.getSd).map(_.getInputFormat).orNull})")
    HiveTableRegistration.location(t).map(PathNames.of(_)).getOrElse(tablePath(db, table))
  }

  /** Whether `lookup` found something; false also when the metastore cannot be asked. */
  private def exists(lookup: => Option[_]): Boolean =
    try lookup.isDefined
    catch { case _: StorageException => false }

  private def database(db: String): Option[Database] =
    try Some(call(s"load database $db")(_.getDatabase(db)))
    catch { case _: NoSuchObjectException => None }

  private def registration(db: String, table: String): Option[org.apache.hadoop.hive.metastore.api.Table] =
    try Some(call(s"load table $db.$table")(_.getTable(db, table)))
    catch { case _: NoSuchObjectException => None }

  /** Runs a metastore call; a failure that is not the metastore's answer is reported naming the
   *  metastore and what was being done. */
  private def call[T](what: String)(f: IMetaStoreClient => T): T = HiveMetastore.call(describe, what)(clients.run(f))
}

object HiveMetastore {
  val CommentProperty = "comment"
  val OwnerProperty = "owner"
  private val TableBatch = 300

  /** The metastore `options` name (see [[HiveConfiguration]]), reached once to check it answers. */
  def open(
      catalog: String, root: Path, fileIO: FileIO, options: Map[String, String], hadoopConf: Configuration): HiveMetastore = {
    val locationInProperties = MetastoreOptions.flag(catalog, options, MetastoreOptions.LocationInProperties, false)
    val conf = HiveConfiguration.build(catalog, options, hadoopConf, root, locationInProperties)
    val entries = HiveConfiguration.entries(conf)
    val describe = HiveConfiguration.describe(conf)
    val clientClass = MetastoreOptions.get(options, MetastoreOptions.MetastoreClientClass).map(_.trim)
      .filter(_.nonEmpty).getOrElse(MetastoreOptions.DefaultMetastoreClientClass)
    val lock =
      if (!MetastoreOptions.lockEnabled(catalog, options, Option(root.toUri.getScheme))) CommitLock.Unlocked
      else HiveCommitLock(entries, clientClass,
        MetastoreOptions.lockMillis(catalog, options, MetastoreOptions.LockAcquireTimeout,
          MetastoreOptions.DefaultLockAcquireTimeout),
        MetastoreOptions.lockMillis(catalog, options, MetastoreOptions.LockCheckMaxSleep,
          MetastoreOptions.DefaultLockCheckMaxSleep))
    val clients = new HiveClients(entries, clientClass, MetastoreOptions.clientPoolSize(catalog, options))
    try {
      clients.run(_.getAllDatabases)
      new HiveMetastore(root, fileIO, clients, lock, locationInProperties,
        MetastoreOptions.flag(catalog, options, MetastoreOptions.SyncAllProperties, false), describe)
    } catch {
      case e: Exception =>
        clients.close()
        throw new BadInputException(s"Catalog '$catalog': cannot reach the Hive metastore ($describe, option " +
            s"'${MetastoreOptions.Uri}'): ${rootMessage(e)}", e)
    }
  }

  def split(qualified: String): (String, String) = qualified.split("\\.", 2) match {
    case Array(d, t) => (d, t)
    case _ => throw new IllegalArgumentException(s"'$qualified' is not db.table")
  }

  def currentUser(): String =
    scala.util.Try(UserGroupInformation.getCurrentUser.getShortUserName).toOption.filter(_ != null)
      .getOrElse(System.getProperty("user.name"))

  /** `f`, with the metastore's answers (no such object, already exists, invalid operation) passed on and
   *  any other failure (unreachable, a server error) reported as a `StorageException` naming `describe`. */
  def call[T](describe: String, what: String)(f: => T): T =
    try f
    catch {
      case e: org.apache.thrift.TException if HiveClients.isAnswer(e) => throw e
      case e: org.apache.thrift.TException =>
        throw new StorageException(what, describe, s"the Hive metastore failed: ${rootMessage(e)}", e)
      case e: RuntimeException if causes(e).exists(_.isInstanceOf[org.apache.thrift.TException]) =>
        throw new StorageException(what, describe, s"the Hive metastore failed: ${rootMessage(e)}", e)
    }

  /** `e` and its causes (a client that cannot connect fails with the transport's error some causes down). */
  private def causes(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq

  private[hive] def rootMessage(e: Throwable): String =
    causes(e).map(_.getMessage).filter(m => m != null && m.nonEmpty).lastOption.getOrElse(e.getClass.getSimpleName)
}
