package lamina.table.schema

import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, BadInputException, CommitConflictException, CorruptFileException, NotFoundException}
import lamina.io.{FileIO, PathNames}

/** Reads and writes the `schema/schema-<id>` files of one table. A new schema id is claimed by
 *  creating its file atomically, so concurrent ALTERs cannot both win the same id. */
final class SchemaManager(fileIO: FileIO, tablePath: Path, tableName: String) extends Serializable {
  private def dir = PathNames.child(tablePath, "schema")
  def schemaPath(id: Long): Path = PathNames.child(dir, s"schema-$id")

  def listIds(): Seq[Long] =
    fileIO.list(dir).map(_.getPath.getName).collect {
      case n if n.startsWith("schema-") && n.drop(7).forall(_.isDigit) && n.length > 7 => n.drop(7).toLong
    }.sorted

  def latest(): Option[TableSchema] = listIds().lastOption.map(schema)

  def schema(id: Long): TableSchema = {
    val p = schemaPath(id)
    if (!fileIO.exists(p)) throw new NotFoundException(s"Schema $id of table $tableName does not exist ($p)")
    val s = TableSchema.fromJson(fileIO.readUtf8(p), p.toString)
    if (s.id != id) throw new CorruptFileException(p.toString, 0, s"schema id $id, as its name says", s.id.toString)
    s
  }

  def all(): Seq[TableSchema] = listIds().map(schema)

  /** Writes schema-0; fails with `AlreadyExistsException` if the table already has a schema (another
   *  creator of the same table won). */
  def create(s: TableSchema): Unit = {
    if (!fileIO.tryAtomicCreate(schemaPath(s.id), s.toJson))
      throw new AlreadyExistsException(s"Table $tableName already exists: it has a schema at $dir")
  }

  /** Applies changes to the latest schema and commits the result as the next schema id,
   *  retrying when another writer claimed that id first. */
  def commitChanges(changes: Seq[SchemaChange]): TableSchema = {
    var attempt = 0
    while (true) {
      val current = latest().getOrElse(throw new NotFoundException(s"Table $tableName has no schema"))
      val next = SchemaEvolution(current, changes, tableName, System.currentTimeMillis())
      if (fileIO.tryAtomicCreate(schemaPath(next.id), next.toJson)) return next
      attempt += 1
      if (attempt > 10) throw new CommitConflictException(
        s"Could not commit a schema change to $tableName after $attempt attempts: other writers kept winning")
    }
    throw new IllegalStateException("unreachable")
  }
}
