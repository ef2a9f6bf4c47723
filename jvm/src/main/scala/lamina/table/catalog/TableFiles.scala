package lamina.table.catalog

import java.io.IOException

import org.apache.hadoop.fs.Path

import lamina.errors.NotFoundException
import lamina.io.{FileIO, StorageFailure}
import lamina.table.FileStoreTable
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
