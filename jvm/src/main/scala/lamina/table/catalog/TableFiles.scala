package lamina.table.catalog

import java.io.IOException

import org.apache.hadoop.fs.Path

import lamina.errors.{BadInputException, NotFoundException}
import lamina.io.{FileIO, StorageFailure}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitLock
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
}
