package lamina.table.snapshot

import org.apache.hadoop.fs.Path

import lamina.io.{FileIO, PathNames}

/** The `changelog/` directory of one table (of one branch): the `changelog-<id>` files of the
 *  changelogs kept after their snapshots expired ([[Changelog]]), and the EARLIEST and LATEST hints
 *  (the decimal id, as in `snapshot/`). Hints are only hints: the listing is the truth when they lag.
 *  Kept changelogs always lie below the earliest snapshot. */
final class ChangelogManager(fileIO: FileIO, branchPath: Path) extends Serializable {
  val dir: Path = PathNames.child(branchPath, "changelog")
  def path(id: Long): Path = PathNames.child(dir, s"changelog-$id")
  private def latestHint = PathNames.child(dir, "LATEST")
  private def earliestHint = PathNames.child(dir, "EARLIEST")

  def listIds(): Seq[Long] =
    fileIO.list(dir).map(_.getPath.getName).collect {
      case n if n.startsWith("changelog-") && n.length > 10 && n.drop(10).forall(_.isDigit) => n.drop(10).toLong
    }.sorted

  def earliestId(): Option[Long] = hinted(earliestHint).orElse(listIds().headOption)

  def latestId(): Option[Long] = hinted(latestHint) match {
    case Some(id) =>
      var cur = id
      while (fileIO.fileExists(path(cur + 1))) cur += 1
      Some(cur)
    case None => listIds().lastOption
  }

  /** The kept changelog of snapshot `id`, if its file exists; a damaged file is a
   *  [[lamina.errors.CorruptFileException]] naming it. */
  def read(id: Long): Option[Changelog] = {
    val p = path(id)
    val text =
      try Some(fileIO.readUtf8(p))
      catch { case _: java.io.FileNotFoundException => None }
    text.map(Changelog.fromJson(_, p.toString, id))
  }

  /** Every kept changelog, oldest first (one a concurrent expiration removed meanwhile is skipped). */
  def all(): Seq[Changelog] = listIds().flatMap(read)

  /** Writes the changelog of an expiring snapshot (again, after a crash: the same text) and moves the
   *  LATEST hint to it. */
  def commit(c: Changelog): Unit = {
    fileIO.mkdirsForFiles(dir)
    fileIO.overwriteUtf8(path(c.id), c.toJson)
    fileIO.overwriteUtf8(latestHint, c.id.toString)
  }

  def delete(id: Long): Unit = fileIO.deleteQuietly(path(id))

  def commitEarliestHint(id: Long): Unit = fileIO.overwriteUtf8(earliestHint, id.toString)
  def commitLatestHint(id: Long): Unit = fileIO.overwriteUtf8(latestHint, id.toString)

  /** Removes both hints (after every changelog went). */
  def deleteHints(): Unit = { fileIO.deleteQuietly(earliestHint); fileIO.deleteQuietly(latestHint) }

  private def hinted(p: Path): Option[Long] =
    (try fileIO.readUtf8(p).trim.toLongOption
    catch { case _: java.io.IOException => None }).filter(id => fileIO.fileExists(path(id)))
}
