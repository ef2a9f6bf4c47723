package lamina.table.tag

import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.io.{FileIO, PathNames}
import lamina.table.Identifiers

/** The `tag/` directory of one table: one `tag-<name>` file per tag (Paimon's layout). Only reads and
 *  writes tag files; what a tag's removal frees is decided in `lamina.table.lifecycle`. */
final class TagManager(fileIO: FileIO, tablePath: Path, tableName: String) extends Serializable {
  val dir: Path = PathNames.child(tablePath, "tag")
  def tagPath(name: String): Path =
    PathNames.child(dir, TagManager.Prefix + Identifiers.check(name, "tag", TagManager.Prefix), "tag")

  def exists(name: String): Boolean = fileIO.exists(tagPath(TagManager.checkName(name)))

  def get(name: String): Option[Tag] = {
    val p = tagPath(TagManager.checkName(name))
    if (!fileIO.exists(p)) None else Some(Tag.fromJson(fileIO.readUtf8(p), p.toString))
  }

  def getOrThrow(name: String): Tag = get(name).getOrElse(
    throw new NotFoundException(s"Tag '$name' of table $tableName does not exist${available()}"))

  /** Every tag, by name. */
  def all(): Seq[(String, Tag)] = names().flatMap(n => get(n).map(n -> _))

  def names(): Seq[String] =
    fileIO.list(dir).map(_.getPath.getName).collect {
      case n if n.startsWith(TagManager.Prefix) && n.length > TagManager.Prefix.length => n.drop(TagManager.Prefix.length)
    }.sorted

  /** Writes a new tag; refuses a name that is taken. */
  def create(name: String, tag: Tag): Unit = {
    fileIO.mkdirsForFiles(dir)
    if (!fileIO.tryAtomicCreate(tagPath(TagManager.checkName(name)), tag.toJson))
      throw new AlreadyExistsException(s"Tag '$name' of table $tableName already exists")
  }

  /** Points an existing tag at another snapshot (or a new retention). */
  def replace(name: String, tag: Tag): Unit = {
    getOrThrow(name)
    fileIO.overwriteUtf8(tagPath(name), tag.toJson)
  }

  def rename(from: String, to: String): Unit = {
    val tag = getOrThrow(from)
    create(to, tag)
    fileIO.delete(tagPath(from), false)
  }

  /** Removes the tag file only. */
  def deleteFile(name: String): Unit = fileIO.delete(tagPath(TagManager.checkName(name)), false)

  private def available(): String = {
    val ns = names()
    if (ns.isEmpty) "; the table has no tags"
    else ns.take(20).mkString("; its tags are ", ", ", if (ns.size > 20) ", ..." else "")
  }
}

object TagManager {
  val Prefix = "tag-"

  /** A tag name is one file-name segment, and not all digits (that would read as a snapshot id in
   *  `VERSION AS OF` and `rollback`, as in Paimon). */
  def checkName(name: String): String = {
    Identifiers.check(name, "tag", Prefix)
    if (name.forall(_.isDigit))
      throw new BadInputException(s"Invalid tag name '$name': it must not be all digits (that names a snapshot id)")
    name
  }
}
