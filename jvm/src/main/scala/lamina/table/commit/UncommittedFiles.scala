package lamina.table.commit

import org.slf4j.LoggerFactory

import lamina.table.FileStoreTable

/** The one way files written for a commit are removed when the commit does not land (a conflict, a
 *  DELETE that deleted nothing, a replayed streaming batch, an aborted job). Invariant: only files
 *  the messages created ([[CommitMessage.createdFiles]], [[CommitMessage.createdIndexFiles]]) are
 *  removed, and never one that the latest snapshot references: a file a concurrent commit made live
 *  (a racing compaction that upgraded the same input under its name) stays. Call it only when no
 *  snapshot of this commit can have landed: after a [[lamina.errors.CommitStateUnknownException]]
 *  nothing may be removed. */
object UncommittedFiles {

  def discard(table: FileStoreTable, msgs: Seq[CommitMessage]): Unit = {
    val data = msgs.flatMap(m => m.createdFiles.map(f => (m, f)))
    val index = msgs.flatMap(_.createdIndexFiles.map(_.fileName))
    if (data.isEmpty && index.isEmpty) return
    val (liveData, liveIndex) = liveAtLatest(table)
    val store = table.manifestStore
    val paths = table.paths
    data.filterNot { case (_, f) => liveData.contains(f.fileName) }.foreach { case (m, f) =>
      table.fileIO.deleteQuietly(paths.dataFile(store.decodePartition(m.partition), m.bucket, f))
    }
    index.filterNot(liveIndex.contains).foreach(name => table.fileIO.deleteQuietly(table.paths.indexFile(name)))
  }

  /** The data and index file names the latest snapshot references; none when it cannot be read (then
   *  the created files are still ours: their names are fresh uuids, except upgraded inputs, which
   *  `createdFiles` already leaves out). */
  private def liveAtLatest(table: FileStoreTable): (Set[String], Set[String]) =
    try table.snapshotManager.latest() match {
        case None => (Set.empty, Set.empty)
        case Some(s) =>
          val data = table.snapshotEntries.live(s, None).map(_.file.fileName).toSet
          val index = s.indexManifest.map(table.manifestStore.readIndexManifest).getOrElse(Seq.empty)
            .map(_.indexFile.fileName).toSet
          (data, index)
      }
    catch {
      case e: Exception =>
        log.warn(s"Could not read the latest snapshot of table ${table.name} before removing uncommitted files", e)
        (Set.empty, Set.empty)
    }

  private val log = LoggerFactory.getLogger(getClass)
}
