package lamina.table.commit

import java.nio.ByteBuffer

import lamina.dv.{DeletionFile, DeletionVector, DeletionVectorsIndexFile}
import lamina.errors.CommitConflictException
import lamina.table.FileStoreTable
import lamina.table.manifest.ManifestEntry
import lamina.table.scan.{DataSplit, SnapshotDeletionFiles}
import lamina.table.snapshot.Snapshot

/** Whether data files an operation `read` (splits with the vectors of the snapshot it read) are still
 *  as it read them in a later snapshot: live, with the same deleted positions. An operation that
 *  marks rows of a file by their positions, or rewrites a file without its deleted rows, must not
 *  commit on top of another's marks of that file: they would be lost, or shift the positions. */
final class VectorsSinceRead(table: FileStoreTable, read: Seq[DataSplit]) {
  private val readVectors: Map[String, Option[DeletionFile]] =
    read.flatMap(s => s.files.map(f => f.fileName -> s.deletionFiles.get(f.fileName))).toMap

  /** The files of `read`, by name. */
  val readFiles: Map[String, DataSplit] = read.flatMap(s => s.files.map(_.fileName -> s)).toMap

  /** `latest`'s live entries by file name and its vectors by (partition, bucket); a [[CommitConflictException]]
   *  (`what` happened to the file, then why) for the first of `files` that `latest` no longer holds or
   *  whose vector changed since read. A vector moved to another index file unchanged does not conflict. */
  def check(latest: Snapshot, files: Seq[String], what: String)
      : (Map[String, ManifestEntry], Map[SnapshotDeletionFiles.Key, Map[String, DeletionFile]]) = {
    def conflict(f: String, why: String) = new CommitConflictException(s"Commit to table ${table.name} conflicts with " +
      s"a concurrent commit: $what $f, but $why since the operation read it. Retry the operation.")
    val live = table.snapshotEntries.live(latest).map(e => e.file.fileName -> e).toMap
    files.sorted.find(!live.contains(_)).foreach(f => throw conflict(f, "a concurrent commit removed the file"))
    val current = SnapshotDeletionFiles.of(table, latest, live.values.toSeq, wholeTable = true)
    files.sorted.foreach { f =>
      val e = live(f)
      val before = readVectors.getOrElse(f, None)
      val now = current.get((ByteBuffer.wrap(e.partition), e.bucket)).flatMap(_.get(f))
      if (before != now && before.map(vector) != now.map(vector))
        throw conflict(f, "a concurrent commit deleted or updated rows of the file")
    }
    (live, current)
  }

  private def vector(f: DeletionFile): DeletionVector = DeletionVectorsIndexFile.read(table.fileIO, f)
}
