package lamina.table.catalog

import org.apache.hadoop.fs.Path

import lamina.errors.BadInputException
import lamina.io.{FileIO, PathNames}
import lamina.table.{FileStoreTable, Identifiers}
import lamina.table.branch.BranchManager
import lamina.table.schema.{SchemaChange, TableSchema}

/** What a metastore owns: the databases and tables of one catalog, their properties, and the
 *  commits that change a table's schema (so a metastore that records schemas sees each one). Tables
 *  live at `<warehouse>/<db>.db/<table>` whatever the metastore, with their schemas, snapshots and
 *  data in files as Paimon lays them out: a metastore decides which of those directories are tables.
 *
 *  Contracts shared by every implementation:
 *  - names are checked by [[Identifiers]] before they reach a path or a query;
 *  - `createDatabase`/`createTable` of an existing name throw `AlreadyExistsException`, also when two
 *    callers race for one name (exactly one wins);
 *  - `loadTable` of a missing table throws `NotFoundException`;
 *  - `dropTable` of a missing table returns false.
 *  A metastore holds connections: `close()` releases them; the filesystem metastore holds none. */
trait Metastore extends AutoCloseable {

  /** The warehouse root every table path is under. */
  def root: Path

  def fileIO: FileIO

  /** Every database name becomes a path here, and only here. */
  final def databasePath(db: String): Path =
    PathNames.child(root, Identifiers.check(db, "database", Metastore.DbSuffix) + Metastore.DbSuffix)

  /** Every table name becomes a path here, and only here. */
  final def tablePath(db: String, table: String): Path =
    PathNames.child(databasePath(db), Identifiers.check(table, "table"))

  def listDatabases(): Seq[String]
  def databaseExists(db: String): Boolean

  /** Creates `db` with `properties` (a metastore that cannot store properties ignores them, as Paimon's
   *  filesystem catalog does). */
  def createDatabase(db: String, properties: Map[String, String]): Unit

  /** The database's properties, `location` among them. */
  def databaseProperties(db: String): Map[String, String]

  /** Drops `db` and everything in it; callers check emptiness first when they must. */
  def dropDatabase(db: String): Unit

  def listTables(db: String): Seq[String]
  def tableExists(db: String, table: String): Boolean
  def loadTable(db: String, table: String): FileStoreTable
  def createTable(db: String, table: String, schema: TableSchema): FileStoreTable
  def dropTable(db: String, table: String): Boolean

  /** Renames a table: its directory moves with it, as Paimon does for managed tables. */
  def renameTable(fromDb: String, from: String, toDb: String, to: String): Unit

  /** Commits `changes` as `table`'s next schema (of its branch, when it is a branch) and returns it. */
  def alterTable(table: FileStoreTable, changes: Seq[SchemaChange]): TableSchema =
    table.schemaManager.commitChanges(changes)

  override def close(): Unit = ()

  /** The table a procedure or job names as `database.table`, or one of its branches as
   *  `database.table$branch_b`. */
  final def loadTable(qualified: String): FileStoreTable = {
    val parts = qualified.split("\\.", -1)
    if (parts.length != 2) throw new BadInputException(s"Table '$qualified' must be given as database.table")
    BranchManager.splitName(parts(1)) match {
      case (t, branch, None) => branch.foldLeft(loadTable(parts(0), t))(_.onBranch(_))
      case (_, _, Some(rest)) =>
        throw new BadInputException(s"Table '$qualified' must be given as database.table or database.table$$branch_name, " +
          s"not with '$$$rest'")
    }
  }
}

object Metastore {
  val DbSuffix = ".db"

  /** The database property holding its directory, as Paimon names it. */
  val LocationProperty = "location"
}
