package lamina.table.sink

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.CommitConflictException
import lamina.table.FileStoreTable
import lamina.table.commit.{CommitMessage, CommitOperation, DeletedPositions, FileStoreCommit, RowCounts, UncommittedFiles}
import lamina.table.lifecycle.SnapshotExpiration
import lamina.table.manifest.ManifestEntry
import lamina.table.scan.DataSplit

/** Driver-side commits of written files, shared by SQL writes, TRUNCATE and the Python API. A commit
 *  that lands is followed by snapshot expiration ([[SnapshotExpiration.afterCommit]]). */
object TableWriter {
  def commitAppend(table: FileStoreTable, msgs: Seq[CommitMessage], user: String = FileStoreCommit.newUser(),
      identifier: Long = System.currentTimeMillis(), operation: CommitOperation = CommitOperation.Write,
      rows: RowCounts = RowCounts.Unknown, keyIndexBase: Option[Option[Long]] = None): Option[Long] =
    expireAfter(table, commit(table, user, operation, rows).append(msgs, identifier, keyIndexBase))

  /** Overwrites the partitions `filter` selects, or (when `partitions` is given) exactly those
   *  serialized partitions. As in Paimon an overwrite commits no changelog: its changelog files are
   *  removed first. */
  def commitOverwrite(table: FileStoreTable, msgs: Seq[CommitMessage], filter: Option[InternalRow => Boolean],
      user: String = FileStoreCommit.newUser(), partitions: Option[Set[java.nio.ByteBuffer]] = None,
      operation: CommitOperation = CommitOperation.Overwrite, rows: RowCounts = RowCounts.Unknown): Option[Long] = {
    deleteFiles(table,
      msgs.map(m => m.copy(newFiles = m.changelogFiles, changelogFiles = Seq.empty, indexChange = None, hashIndex = None)))
    val c = commit(table, user, operation, rows)
    expireAfter(table,
      partitions match {
        case Some(ps) => c.overwritePartitions(msgs, ps)
        case None => c.overwrite(msgs, filter)
      })
  }

  /** A commit whose snapshot records `operation` and the `rows` counts the write knows. */
  private def commit(table: FileStoreTable, user: String, operation: CommitOperation, rows: RowCounts) =
    new FileStoreCommit(table, user, operation.properties ++ rows.properties)

  private def expireAfter(table: FileStoreTable, committed: Option[Long]): Option[Long] = {
    if (committed.isDefined) SnapshotExpiration.afterCommit(table)
    committed
  }

  /** Copy-on-write: replaces the files a row-level operation read with the ones it wrote
   *  ([[FileStoreCommit.replace]]). */
  def commitReplace(table: FileStoreTable, msgs: Seq[CommitMessage], read: Seq[DataSplit], onlyRemovesRows: Boolean,
      user: String, operation: CommitOperation, rows: RowCounts = RowCounts.Unknown): Option[Long] =
    commit(table, user, operation, rows).replace(read, msgs, onlyRemovesRows)

  /** A rescale: replaces every file of the partitions `read` holds with the files of `msgs`
   *  ([[FileStoreCommit.rescale]]); a commit that does not land removes them. */
  def commitRescale(table: FileStoreTable, read: Seq[DataSplit], msgs: Seq[CommitMessage],
      operation: CommitOperation, what: String = "rescale", kept: Set[String] = Set.empty,
      mayArrive: ManifestEntry => Boolean = _ => false): Option[Long] = {
    val committed =
      try commit(table, FileStoreCommit.newUser(), operation, RowCounts.Unknown).rescale(read, msgs, what = what, kept = kept,
          mayArrive = mayArrive)
      catch {
        case e: CommitConflictException => deleteFiles(table, msgs); throw e
      }
    expireAfter(table, committed)
  }

  /** Deletion vectors: marks the rows a row-level operation deleted in the files it read, and adds
   *  the files it wrote ([[FileStoreCommit.markDeleted]]). */
  def commitMarkDeleted(table: FileStoreTable, msgs: Seq[CommitMessage], read: Seq[DataSplit],
      deleted: DeletedPositions, user: String, operation: CommitOperation, rows: RowCounts = RowCounts.Unknown): Option[Long] =
    expireAfter(table, commit(table, user, operation, rows).markDeleted(read, deleted, msgs))

  /** Removes the files `msgs` created for a commit that did not land ([[UncommittedFiles]]). */
  def deleteFiles(table: FileStoreTable, msgs: Seq[CommitMessage]): Unit = UncommittedFiles.discard(table, msgs)
}
