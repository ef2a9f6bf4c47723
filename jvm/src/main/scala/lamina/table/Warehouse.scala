package lamina.table

import java.io.IOException

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.io.{FileIO, PathNames, StorageFailure}
import lamina.table.branch.BranchManager
import lamina.table.schema.{SchemaManager, TableSchema}

/** The filesystem metastore: `<warehouse>/<db>.db/<table>/`. A directory is a table when it holds
 *  at least one schema file. */
final case class Warehouse(root: Path, fileIO: FileIO) {

  /** Every database name becomes a path here, and only here: checked by [[Identifiers]]. */
  def databasePath(db: String): Path =
    PathNames.child(root, Identifiers.check(db, "database", Warehouse.DbSuffix) + Warehouse.DbSuffix)

  /** Every table name becomes a path here, and only here: checked by [[Identifiers]]. */
  def tablePath(db: String, table: String): Path = PathNames.child(databasePath(db), Identifiers.check(table, "table"))

  def listDatabases(): Seq[String] =
    fileIO.listDirectory(root).filter(s => s.isDirectory && s.getPath.getName.endsWith(Warehouse.DbSuffix))
      .map(_.getPath.getName.stripSuffix(Warehouse.DbSuffix)).sorted

  def databaseExists(db: String): Boolean = fileIO.isDir(databasePath(db))

  def createDatabase(db: String): Unit = {
    val path = databasePath(db)
    if (databaseExists(db)) throw new AlreadyExistsException(s"Database $db already exists")
    fileIO.mkdirs(path)
  }

  def dropDatabase(db: String): Unit = fileIO.deleteDirectory(databasePath(db))

  def listTables(db: String): Seq[String] =
    fileIO.listDirectory(databasePath(db)).filter(_.isDirectory).map(_.getPath.getName)
      .filter(t => !t.startsWith(".") && tableExists(db, t)).sorted

  def tableExists(db: String, table: String): Boolean =
    new SchemaManager(fileIO, tablePath(db, table), s"$db.$table").listIds().nonEmpty

  def loadTable(db: String, table: String): FileStoreTable = {
    val path = tablePath(db, table)
    val name = s"$db.$table"
    if (!databaseExists(db)) throw new NotFoundException(s"Table $name does not exist")
    val schema = new SchemaManager(fileIO, path, name).latest()
      .getOrElse(throw new NotFoundException(s"Table $name does not exist"))
    FileStoreTable(fileIO, path, name, schema)
  }

  /** The table a procedure or job names as `database.table`, or one of its branches as
   *  `database.table$branch_b`. */
  def loadTable(qualified: String): FileStoreTable = {
    val parts = qualified.split("\\.", -1)
    if (parts.length != 2) throw new BadInputException(s"Table '$qualified' must be given as database.table")
    BranchManager.splitName(parts(1)) match {
      case (t, branch, None) => branch.foldLeft(loadTable(parts(0), t))(_.onBranch(_))
      case (_, _, Some(rest)) =>
        throw new BadInputException(s"Table '$qualified' must be given as database.table or database.table$$branch_name, " +
          s"not with '$$$rest'")
    }
  }

  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable = {
    val path = tablePath(db, table)
    val name = s"$db.$table"
    new SchemaManager(fileIO, path, name).create(schema)
    FileStoreTable(fileIO, path, name, schema)
  }

  /** False when there is no such table; a table the file system would not delete is an error. */
  def dropTable(db: String, table: String): Boolean =
    tableExists(db, table) && { fileIO.deleteDirectory(tablePath(db, table)); true }

  def renameTable(fromDb: String, from: String, toDb: String, to: String): Unit = {
    val src = tablePath(fromDb, from)
    val dst = tablePath(toDb, to)
    val fs = fileIO.fs(src)
    val renamed =
      try fs.rename(src, dst)
      catch { case e: IOException => throw StorageFailure(fs, s"rename table $fromDb.$from to", dst, e) }
    if (!renamed) throw StorageFailure(fs, s"rename table $fromDb.$from to", dst)
  }
}

object Warehouse {
  val DbSuffix = ".db"

  def apply(root: Path, conf: Configuration): Warehouse = Warehouse(root, FileIO(conf))

  /** `conf` with local files written without `.crc` side files. */
  def noChecksums(conf: Configuration): Configuration = {
    conf.set("fs.file.impl", classOf[org.apache.hadoop.fs.RawLocalFileSystem].getName)
    conf.setBoolean("fs.file.impl.disable.cache", true)
    conf
  }
}
