package lamina.table.catalog

import java.io.IOException

import org.apache.hadoop.fs.Path
import org.slf4j.LoggerFactory

import lamina.errors.{BadInputException, NotFoundException, StorageException}
import lamina.io.{FileIO, StorageFailure}
import lamina.table.{ExternalDataRoots, FileStoreTable}
import lamina.table.branch.BranchManager
import lamina.table.commit.CommitLock
import lamina.table.options.CoreOptions
import lamina.table.schema.{SchemaManager, TableSchema}

/** A table's directory, the part of every metastore that is the same: the schema files say what
 *  the table is, whoever records that it exists. */
object TableFiles {

  /** The table at `path`, from its latest schema file; `NotFoundException` when it has none. */
  def load(fileIO: FileIO, path: Path, name: String): FileStoreTable = {
    val schema = new SchemaManager(fileIO, path, name).latest()
      .getOrElse(throw new NotFoundException(s"Table $name does not exist"))
    FileStoreTable(fileIO, path, name, schema)
  }

  /** The table a metastore registered at `path` (`registry` names where, for the message), with the
   *  metastore's commit lock. A registration without schema files (its creator died between the two, or
   *  the files were deleted) is an error that says so, not a missing table: Spark would drop the message. */
  def loadRegistered(fileIO: FileIO, path: Path, name: String, registry: String, lock: CommitLock): FileStoreTable = {
    if (!hasSchema(fileIO, path, name))
      throw new BadInputException(s"Table $name is registered in $registry but has no schema files at $path; " +
        s"DROP TABLE $name removes the registration")
    load(fileIO, path, name).copy(commitLock = lock)
  }

  /** Writes schema-0 at `path`; fails when the directory already holds a schema. */
  def create(fileIO: FileIO, path: Path, name: String, schema: TableSchema): FileStoreTable = {
    new SchemaManager(fileIO, path, name).create(schema)
    FileStoreTable(fileIO, path, name, schema)
  }

  def hasSchema(fileIO: FileIO, path: Path, name: String): Boolean =
    new SchemaManager(fileIO, path, name).listIds().nonEmpty

  /** Moves a table's directory; an error when the file system refuses. */
  def move(fileIO: FileIO, src: Path, dst: Path, name: String): Unit = {
    val fs = fileIO.fs(src)
    val renamed =
      try fs.rename(src, dst)
      catch { case e: IOException => throw StorageFailure(fs, s"rename table $name to", dst, e) }
    if (!renamed) throw StorageFailure(fs, s"rename table $name to", dst)
  }

  /** Deletes a table's directory and, as Paimon's catalogs do, every external data root that a schema
   *  of any of its branches lists (`data-file.external-paths`, whole: a root is the table's own). A
   *  listed root that is not an absolute URI is left alone; one that cannot be deleted once the table's
   *  directory is gone (a file system this process cannot reach) is left with a warning, since the
   *  table no longer exists. */
  def delete(fileIO: FileIO, path: Path, name: String): Unit = {
    val roots = externalRoots(fileIO, path, name)
    if (fileIO.exists(path)) fileIO.deleteDirectory(path)
    roots.foreach { root =>
      try if (fileIO.exists(root)) fileIO.deleteDirectory(root)
      catch {
        case e @ (_: IOException | _: StorageException) =>
          log.warn(s"DROP TABLE $name leaves its external data root $root, which it cannot delete", e)
      }
    }
  }

  private val log = LoggerFactory.getLogger(getClass)

  private def externalRoots(fileIO: FileIO, path: Path, name: String): Seq[Path] = {
    val branches = path +: new BranchManager(fileIO, path, name).names().map(BranchManager.branchPath(path, _))
    branches.flatMap(new SchemaManager(fileIO, _, name).all()).flatMap { s =>
      CoreOptions.DataFileExternalPaths.get(s.options).getOrElse(Nil).flatMap { root =>
        try ExternalDataRoots.listed(Map(CoreOptions.DataFileExternalPaths.key -> root), name)
        catch { case _: BadInputException => Nil }
      }
    }.distinct
  }
}
