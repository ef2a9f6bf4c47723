package lamina.table.snapshot

import org.apache.hadoop.fs.Path

import lamina.errors.{CorruptFileException, NotFoundException}
import lamina.io.{FileIO, PathNames}
import lamina.table.tag.TagManager

/** The `snapshot/` directory of one table: snapshot-N files, and the LATEST and EARLIEST hints.
 *  Hints are only hints: the listing is the truth when they lag. A snapshot that expired but that a
 *  tag keeps is read from its tag ([[snapshot]]). */
final class SnapshotManager(fileIO: FileIO, tablePath: Path, tableName: String) extends Serializable {
  private val files = new VersionedFiles(fileIO, PathNames.child(tablePath, "snapshot"), "snapshot-")
  val dir: Path = files.dir
  def snapshotPath(id: Long): Path = files.path(id)
  private def latestHint = files.latestHint
  private def earliestHint = files.earliestHint

  def listIds(): Seq[Long] = files.listIds()

  def latestId(): Option[Long] = files.latestId()

  def earliestId(): Option[Long] = files.earliestId()

  def latest(): Option[Snapshot] = latestId().map(snapshot)

  def exists(id: Long): Boolean = fileIO.fileExists(snapshotPath(id))

  /** Snapshot `id`: its file, or, once it expired, a tag of it (the tag holds the same JSON and keeps
   *  its files). Missing from both: a [[NotFoundException]] that says whether it expired. */
  def snapshot(id: Long): Snapshot =
    read(id).orElse(tags.all().map(_._2.snapshot).find(_.id == id)).getOrElse {
      val (earliest, latest) = (earliestId(), latestId())
      val why = earliest match {
        case Some(e) if id < e && id >= 1 => "has expired"
        case _ => "does not exist"
      }
      val range = (earliest, latest) match {
        case (Some(e), Some(l)) => s"; available snapshots are $e to $l"
        case _ => "; the table has no snapshots"
      }
      val tagged = tags.all().map { case (n, t) => s"'$n' (snapshot ${t.snapshot.id})" }
      throw new NotFoundException(s"Snapshot $id of table $tableName $why$range" +
        (if (tagged.isEmpty) "" else tagged.mkString(", and tags ", ", ", "")))
    }

  /** The file of snapshot `id`, if it exists. */
  def read(id: Long): Option[Snapshot] = {
    val p = snapshotPath(id)
    files.readText(id).map { t =>
      val s = Snapshot.fromJson(t, p.toString)
      if (s.id != id) throw new CorruptFileException(p.toString, 0, s"snapshot id $id, as its name says", s.id.toString)
      s
    }
  }

  def tags: TagManager = new TagManager(fileIO, tablePath, tableName)

  /** Removes the file of snapshot `id` (expiration and rollback, after the files only it used). */
  def delete(id: Long): Unit = fileIO.delete(snapshotPath(id), false)

  def commitEarliestHint(id: Long): Unit = fileIO.overwriteUtf8(earliestHint, id.toString)
  def commitLatestHint(id: Long): Unit = fileIO.overwriteUtf8(latestHint, id.toString)

  /** Writes the file of snapshot `s` back (rollback to a tag whose snapshot expired). */
  def restore(s: Snapshot): Unit = {
    fileIO.mkdirsForFiles(dir)
    fileIO.tryAtomicCreate(snapshotPath(s.id), s.toJson)
  }

  def all(): Seq[Snapshot] = listIds().flatMap(read)

  /** The latest snapshot committed at or before `millis`. */
  def earlierOrEqualTime(millis: Long): Option[Snapshot] = {
    all().filter(_.timeMillis <= millis).lastOption
  }

  /** Claims snapshot `s.id`; false when another writer already holds that id. */
  def tryCommit(s: Snapshot): Boolean = {
    fileIO.mkdirsForFiles(dir)
    val ok = fileIO.tryAtomicCreate(snapshotPath(s.id), s.toJson)
    if (ok) {
      try {
        fileIO.overwriteUtf8(latestHint, s.id.toString)
        if (!fileIO.fileExists(earliestHint)) fileIO.overwriteUtf8(earliestHint, s.id.toString)
      } catch { case _: java.io.IOException => () } // hints are advisory
    }
    ok
  }

}
