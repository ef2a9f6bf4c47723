package lamina.table

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, NotFoundException}
import lamina.io.FileIO
import lamina.table.catalog.{Metastore, TableFiles}
import lamina.table.schema.{SchemaManager, TableSchema}

/** The filesystem metastore (`metastore=filesystem`): `<warehouse>/<db>.db/<table>/`. A directory is a
 *  database when its name ends in `.db`, a table when it holds at least one schema file. Database
 *  properties are not stored (as in Paimon's filesystem catalog): only `location` is reported. */
final case class Warehouse(root: Path, fileIO: FileIO) extends Metastore {

  def listDatabases(): Seq[String] =
    fileIO.listDirectory(root).filter(s => s.isDirectory && s.getPath.getName.endsWith(Metastore.DbSuffix))
      .map(_.getPath.getName.stripSuffix(Metastore.DbSuffix)).sorted

  def databaseExists(db: String): Boolean = fileIO.isDir(databasePath(db))

  def createDatabase(db: String, properties: Map[String, String]): Unit = {
    val path = databasePath(db)
    if (databaseExists(db)) throw new AlreadyExistsException(s"Database $db already exists")
    fileIO.mkdirs(path)
  }

  def databaseProperties(db: String): Map[String, String] = {
    if (!databaseExists(db)) throw new NotFoundException(s"Database $db does not exist")
    Map(Metastore.LocationProperty -> databasePath(db).toString)
  }

  def dropDatabase(db: String): Unit = fileIO.deleteDirectory(databasePath(db))

  def listTables(db: String): Seq[String] =
    fileIO.listDirectory(databasePath(db)).filter(_.isDirectory).map(_.getPath.getName)
      .filter(t => !t.startsWith(".") && tableExists(db, t)).sorted

  def tableExists(db: String, table: String): Boolean =
    new SchemaManager(fileIO, tablePath(db, table), s"$db.$table").listIds().nonEmpty

  def loadTable(db: String, table: String): FileStoreTable = {
    if (!databaseExists(db)) throw new NotFoundException(s"Table $db.$table does not exist")
    TableFiles.load(fileIO, tablePath(db, table), s"$db.$table")
  }

  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable =
    TableFiles.create(fileIO, tablePath(db, table), s"$db.$table", schema)

  /** False when there is no such table; a table the file system would not delete is an error. */
  def dropTable(db: String, table: String): Boolean =
    tableExists(db, table) && { TableFiles.delete(fileIO, tablePath(db, table), s"$db.$table"); true }

  def renameTable(fromDb: String, from: String, toDb: String, to: String): Unit =
    TableFiles.move(fileIO, tablePath(fromDb, from), tablePath(toDb, to), s"$fromDb.$from")
}

object Warehouse {
  val DbSuffix: String = Metastore.DbSuffix

  def apply(root: Path, conf: Configuration): Warehouse = Warehouse(root, FileIO(conf))
}
