package lamina.table

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.io.FileIO
import lamina.table.schema.{SchemaManager, TableSchema}

/** The filesystem metastore: `<warehouse>/<db>.db/<table>/`. A directory is a table when it holds
 *  at least one schema file. */
final case class Warehouse(root: Path, fileIO: FileIO) {
  def databasePath(db: String): Path = new Path(root, s"$db${Warehouse.DbSuffix}")
  def tablePath(db: String, table: String): Path = new Path(databasePath(db), table)

  def listDatabases(): Seq[String] =
    fileIO.list(root).filter(s => s.isDirectory && s.getPath.getName.endsWith(Warehouse.DbSuffix))
      .map(_.getPath.getName.stripSuffix(Warehouse.DbSuffix)).sorted

  def databaseExists(db: String): Boolean = fileIO.isDir(databasePath(db))

  def createDatabase(db: String): Unit = {
    Warehouse.checkName(db, "database")
    if (databaseExists(db)) throw new AlreadyExistsException(s"Database $db already exists")
    fileIO.mkdirs(databasePath(db))
  }

  def dropDatabase(db: String): Unit = fileIO.delete(databasePath(db), true)

  def listTables(db: String): Seq[String] =
    fileIO.list(databasePath(db)).filter(_.isDirectory).map(_.getPath.getName)
      .filter(t => !t.startsWith(".") && tableExists(db, t)).sorted

  def tableExists(db: String, table: String): Boolean =
    !table.contains("/") && new SchemaManager(fileIO, tablePath(db, table), s"$db.$table").listIds().nonEmpty

  def loadTable(db: String, table: String): FileStoreTable = {
    val path = tablePath(db, table)
    val name = s"$db.$table"
    if (table.contains("/") || !databaseExists(db)) throw new NotFoundException(s"Table $name does not exist")
    val schema = new SchemaManager(fileIO, path, name).latest()
      .getOrElse(throw new NotFoundException(s"Table $name does not exist"))
    FileStoreTable(fileIO, path, name, schema)
  }

  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable = {
    Warehouse.checkName(table, "table")
    val path = tablePath(db, table)
    val name = s"$db.$table"
    new SchemaManager(fileIO, path, name).create(schema)
    FileStoreTable(fileIO, path, name, schema)
  }

  def dropTable(db: String, table: String): Boolean =
    tableExists(db, table) && fileIO.delete(tablePath(db, table), true)

  def renameTable(fromDb: String, from: String, toDb: String, to: String): Unit = {
    Warehouse.checkName(to, "table")
    val src = tablePath(fromDb, from)
    val dst = tablePath(toDb, to)
    if (!fileIO.fs(src).rename(src, dst))
      throw new BadInputException(s"Could not rename table $fromDb.$from to $toDb.$to")
  }
}

object Warehouse {
  val DbSuffix = ".db"

  def apply(root: Path, conf: Configuration): Warehouse = Warehouse(root, FileIO(conf))

  /** Names become directory names: no separators, no leading dot, not empty. */
  def checkName(name: String, what: String): Unit = {
    if (name == null || name.trim.isEmpty) throw new BadInputException(s"The $what name must not be empty")
    if (name.exists(c => c == '/' || c == '\\' || c == '$' || c.isControl) || name.startsWith("."))
      throw new BadInputException(
        s"Invalid $what name '$name': it must not contain '/', '\\', '$$', control characters or start with '.'")
  }

  /** `conf` with local files written without `.crc` side files. */
  def noChecksums(conf: Configuration): Configuration = {
    conf.set("fs.file.impl", classOf[org.apache.hadoop.fs.RawLocalFileSystem].getName)
    conf.setBoolean("fs.file.impl.disable.cache", true)
    conf
  }
}
