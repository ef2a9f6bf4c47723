package lamina.table.snapshot

import org.apache.hadoop.fs.Path

import lamina.io.{FileIO, PathNames}

/** One directory of numbered JSON files `<prefix><id>` with LATEST and EARLIEST hints (each the
 *  decimal id, UTF-8), as Paimon lays out `snapshot/` and `changelog/`. Hints are only hints: they
 *  count when the file they name exists, and the listing is the truth otherwise. */
final class VersionedFiles(fileIO: FileIO, val dir: Path, prefix: String) extends Serializable {
  def path(id: Long): Path = PathNames.child(dir, s"$prefix$id")
  val latestHint: Path = PathNames.child(dir, "LATEST")
  val earliestHint: Path = PathNames.child(dir, "EARLIEST")

  def listIds(): Seq[Long] =
    fileIO.list(dir).map(_.getPath.getName).collect {
      case n if n.startsWith(prefix) && n.length > prefix.length && n.drop(prefix.length).forall(_.isDigit) =>
        n.drop(prefix.length).toLong
    }.sorted

  /** The LATEST hint's id, moved on past files written after it; else the listing's last. */
  def latestId(): Option[Long] = hinted(latestHint) match {
    case Some(id) =>
      var cur = id
      while (fileIO.fileExists(path(cur + 1))) cur += 1
      Some(cur)
    case None => listIds().lastOption
  }

  def earliestId(): Option[Long] = hinted(earliestHint).orElse(listIds().headOption)

  /** The text of file `id`, None when it does not exist. */
  def readText(id: Long): Option[String] =
    try Some(fileIO.readUtf8(path(id)))
    catch { case _: java.io.FileNotFoundException => None }

  private def hinted(p: Path): Option[Long] =
    // read at once: a missing hint is a FileNotFoundException, one request fewer than asking first
    (try fileIO.readUtf8(p).trim.toLongOption
    catch { case _: java.io.IOException => None }).filter(id => fileIO.fileExists(path(id)))
}
