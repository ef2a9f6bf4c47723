package lamina.table.lifecycle

import org.apache.hadoop.fs.Path

import lamina.errors.{AlreadyExistsException, BadInputException}
import lamina.io.PathNames
import lamina.table.FileStoreTable
import lamina.table.branch.BranchManager
import lamina.table.schema.SchemaManager
import lamina.table.snapshot.SnapshotManager
import lamina.table.tag.TagManager

/** Creating, deleting and fast-forwarding the branches of one table, as Paimon's procedures do.
 *  A branch only ever copies metadata (snapshot, schema and tag JSON files); the data files and
 *  manifests it starts from stay shared with the branch it came from, and expiration keeps what any
 *  branch holds ([[OtherBranches]]). */
object Branches {

  /** Creates branch `name` of `table` (its main branch): from tag `tag`, a branch whose one snapshot is
   *  the tag's (with the tag and the schemas up to the snapshot's); without a tag, an empty branch with
   *  the table's schemas up to the latest, as in Paimon. Built in a hidden directory and renamed into
   *  place, so that a crash never leaves half a branch. */
  def create(table: FileStoreTable, name: String, tag: Option[String]): Unit = {
    BranchManager.checkName(name)
    val branches = table.branchManager
    if (branches.exists(name)) throw new AlreadyExistsException(s"Branch '$name' of table ${table.baseName} already exists")
    val fileIO = table.fileIO
    val staging = PathNames.child(branches.dir, s".${BranchManager.Prefix}$name-${java.util.UUID.randomUUID()}")
    val (snapshots, schemas) = (table.snapshotManager, table.schemaManager)
    val lastSchema = tag match {
      case Some(t) =>
        val found = snapshots.tags.getOrThrow(t)
        val copy = new TagManager(fileIO, staging, table.name)
        fileIO.mkdirs(copy.dir)
        fileIO.tryAtomicCreate(copy.tagPath(t), fileIO.readUtf8(snapshots.tags.tagPath(t)))
        val copied = new SnapshotManager(fileIO, staging, table.name)
        copied.restore(found.snapshot)
        copied.commitEarliestHint(found.snapshot.id)
        copied.commitLatestHint(found.snapshot.id)
        found.snapshot.schemaId
      case None => table.schema.id
    }
    val target = new SchemaManager(fileIO, staging, table.name)
    fileIO.mkdirs(PathNames.child(staging, "schema"))
    schemas.listIds().filter(_ <= lastSchema).foreach { id =>
      fileIO.tryAtomicCreate(target.schemaPath(id), fileIO.readUtf8(schemas.schemaPath(id)))
    }
    val fs = fileIO.fs(staging)
    // a directory without a schema is what a deleted branch left (a reader's lease written meanwhile)
    if (!branches.exists(name) && fileIO.isDir(branches.branchPath(name))) fileIO.deleteDirectory(branches.branchPath(name))
    if (branches.exists(name) || !fs.rename(staging, branches.branchPath(name))) {
      fileIO.deleteDirectory(staging)
      throw new AlreadyExistsException(s"Branch '$name' of table ${table.baseName} already exists")
    }
  }

  /** Deletes branch `name`'s directory. The data files only it wrote stay until `remove_orphan_files`
   *  removes them, as in Paimon. */
  def delete(table: FileStoreTable, name: String): Unit = {
    table.branchManager.requireExists(name)
    table.fileIO.deleteDirectory(table.branchManager.branchPath(name))
  }

  /** Paimon's `fast_forward`: main becomes branch `name`. Main's snapshots from the branch's earliest
   *  snapshot on, its schemas from that snapshot's schema on and its tags of those snapshots are
   *  replaced by the branch's snapshot, schema and tag files. Not safe beside concurrent writers of
   *  main (as in Paimon). */
  def fastForward(table: FileStoreTable, name: String): Unit = {
    if (BranchManager.isMain(name)) throw new BadInputException("branch must name a branch other than main")
    val main = table.onBranch(BranchManager.Main)
    val branch = main.onBranch(name)
    val fileIO = table.fileIO
    val from = branch.snapshotManager.earliestId().getOrElse(
      throw new BadInputException(s"Cannot fast-forward table ${main.name} to branch '$name': the branch has no snapshot"))
    val firstSchema = branch.snapshotManager.snapshot(from).schemaId
    val (snapshots, schemas, tags) = (main.snapshotManager, main.schemaManager, main.snapshotManager.tags)
    snapshots.listIds().filter(_ >= from).foreach(snapshots.delete)
    schemas.listIds().filter(_ >= firstSchema).foreach(id => fileIO.delete(schemas.schemaPath(id), false))
    tags.all().filter(_._2.snapshot.id >= from).foreach { case (n, _) => tags.deleteFile(n) }
    def copyAll(fromDir: Path, toDir: Path, prefix: String): Unit =
      fileIO.list(fromDir).filter(st => st.isFile && st.getPath.getName.startsWith(prefix)).foreach { st =>
        fileIO.mkdirs(toDir)
        fileIO.overwriteUtf8(PathNames.child(toDir, st.getPath.getName), fileIO.readUtf8(st.getPath))
      }
    copyAll(branch.schemaManager.schemaPath(0).getParent, schemas.schemaPath(0).getParent, "schema-")
    copyAll(branch.snapshotManager.tags.dir, tags.dir, TagManager.Prefix)
    copyAll(branch.snapshotManager.dir, snapshots.dir, "snapshot-")
    val ids = snapshots.listIds()
    ids.headOption.foreach(snapshots.commitEarliestHint)
    ids.lastOption.foreach(snapshots.commitLatestHint)
  }
}
