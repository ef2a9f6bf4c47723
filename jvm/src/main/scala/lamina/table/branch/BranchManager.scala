package lamina.table.branch

import org.apache.hadoop.fs.Path

import lamina.errors.{BadInputException, NotFoundException}
import lamina.io.{FileIO, PathNames}
import lamina.table.Identifiers

/** The `branch/` directory of one table, in Paimon's layout: one `branch-<name>/` directory per
 *  branch, holding the branch's own `snapshot/`, `schema/` and `tag/` directories. Data files,
 *  manifests and index files stay in the table's directory, shared by every branch. The main branch
 *  is the table's directory itself. Only names and paths live here; creating, deleting and
 *  fast-forwarding branches is `lamina.table.lifecycle.Branches`. */
final class BranchManager(fileIO: FileIO, tablePath: Path, tableName: String) extends Serializable {
  val dir: Path = PathNames.child(tablePath, "branch")

  def branchPath(name: String): Path = BranchManager.branchPath(tablePath, name)

  /** A branch is a branch directory with a `schema/` directory: one without is what a deleted branch
   *  left behind (a reader's lease written meanwhile), or one being created. */
  def exists(name: String): Boolean = !BranchManager.isMain(name) && hasSchema(branchPath(name))

  private def hasSchema(branch: Path): Boolean = fileIO.isDir(PathNames.child(branch, "schema"))

  /** Every branch but main, by name. */
  def names(): Seq[String] =
    fileIO.listDirectory(dir).filter(_.isDirectory).collect {
      case st
          if st.getPath.getName.startsWith(BranchManager.Prefix) &&
            st.getPath.getName.length > BranchManager.Prefix.length && hasSchema(st.getPath) =>
        st.getPath.getName.drop(BranchManager.Prefix.length)
    }.sorted

  /** When the branch was created: its directory's modification time, as Paimon's `$branches` shows it. */
  def createTimeMillis(name: String): Long = {
    val p = branchPath(name)
    fileIO.fs(p).getFileStatus(p).getModificationTime
  }

  def requireExists(name: String): Unit =
    if (!exists(name)) throw new NotFoundException(s"Branch '$name' of table $tableName does not exist${available()}")

  private def available(): String = {
    val ns = names()
    if (ns.isEmpty) "; the table has no branches" else ns.mkString("; its branches are ", ", ", "")
  }
}

object BranchManager {
  val Main = "main"
  val Prefix = "branch-"

  def isMain(name: String): Boolean = name == Main

  /** The directory holding a branch's `snapshot/`, `schema/` and `tag/`: the table's for main. */
  def branchPath(tablePath: Path, name: String): Path =
    if (isMain(name)) tablePath
    else PathNames.child(PathNames.child(tablePath, "branch"), Prefix + Identifiers.check(name, "branch", Prefix), "branch")

  /** A blank branch option means main, as in Paimon. */
  def normalize(name: String): String = if (name == null || name.trim.isEmpty) Main else name.trim

  val SuffixPrefix = "branch_"

  /** A table's name as queries give it, Paimon's way: `t`, `t$branch_b`, `t$snapshots`,
   *  `t$branch_b$snapshots` -> (the table, the branch if named, the rest after `$` if any). */
  def splitName(name: String): (String, Option[String], Option[String]) = {
    val parts = name.split("\\$", -1).toSeq
    parts.drop(1) match {
      case Seq(b, rest @ _*) if b.toLowerCase.startsWith(SuffixPrefix) =>
        (parts.head, Some(b.drop(SuffixPrefix.length)), if (rest.isEmpty) None else Some(rest.mkString("$")))
      case Seq() => (parts.head, None, None)
      case rest => (parts.head, None, Some(rest.mkString("$")))
    }
  }

  /** A branch name a new branch may take: one file-name segment, not `main`, not all digits (as in
   *  Paimon). */
  def checkName(name: String): String = {
    Identifiers.check(name, "branch", Prefix)
    if (isMain(name)) throw new BadInputException(s"Invalid branch name '$name': it names the main branch")
    if (name.forall(_.isDigit)) throw new BadInputException(s"Invalid branch name '$name': it must not be all digits")
    name
  }
}
