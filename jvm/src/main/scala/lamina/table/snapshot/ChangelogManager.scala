package lamina.table.snapshot

import org.apache.hadoop.fs.Path

import lamina.io.{FileIO, PathNames}

/** The `changelog/` directory of one table (of one branch): the `changelog-<id>` files of the
 *  changelogs kept after their snapshots expired ([[Changelog]]), and the EARLIEST and LATEST hints
 *  (the decimal id, as in `snapshot/`). Hints are only hints: the listing is the truth when they lag.
 *  Kept changelogs lie below the earliest snapshot (a rollback to a tag of an expired snapshot keeps
 *  the changelog of that id, as Paimon's does). */
final class ChangelogManager(fileIO: FileIO, branchPath: Path) extends Serializable {
  private val files = new VersionedFiles(fileIO, PathNames.child(branchPath, "changelog"), "changelog-")
  val dir: Path = files.dir
  def path(id: Long): Path = files.path(id)

  def listIds(): Seq[Long] = files.listIds()
  def earliestId(): Option[Long] = files.earliestId()
  def latestId(): Option[Long] = files.latestId()

  /** The kept changelog of snapshot `id`, if its file exists; a damaged file is a
   *  [[lamina.errors.CorruptFileException]] naming it. */
  def read(id: Long): Option[Changelog] = {
    files.readText(id).map(Changelog.fromJson(_, path(id).toString, id))
  }

  /** Every kept changelog, oldest first (one a concurrent expiration removed meanwhile is skipped). */
  def all(): Seq[Changelog] = listIds().flatMap(read)

  /** Writes the changelog of an expiring snapshot (again, after a crash: the same text) and moves the
   *  LATEST hint to it. */
  def commit(c: Changelog): Unit = {
    fileIO.mkdirsForFiles(dir)
    fileIO.overwriteUtf8(path(c.id), c.toJson)
    fileIO.overwriteUtf8(files.latestHint, c.id.toString)
  }

  def delete(id: Long): Unit = fileIO.deleteQuietly(path(id))

  def commitEarliestHint(id: Long): Unit = fileIO.overwriteUtf8(files.earliestHint, id.toString)
  def commitLatestHint(id: Long): Unit = fileIO.overwriteUtf8(files.latestHint, id.toString)

  /** Removes both hints (after every changelog went). */
  def deleteHints(): Unit = { fileIO.deleteQuietly(files.earliestHint); fileIO.deleteQuietly(files.latestHint) }

}
