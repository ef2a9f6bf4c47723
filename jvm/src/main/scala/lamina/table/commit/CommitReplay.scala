package lamina.table.commit

import lamina.table.FileStoreTable
import lamina.table.snapshot.Snapshot

/** Recognises a commit that already landed, for writers that may replay one (a streaming query's
 *  micro-batch after a restart): the commits of one `commitUser` carry increasing identifiers, so a
 *  commit of `identifier` landed when the latest snapshot of that user carries it or a later one.
 *  As Paimon's `filterCommitted`, the snapshots are walked from the latest back to the user's latest
 *  (COMPACT snapshots, which a writer's follow-up commits with identifiers of its own, do not count). */
object CommitReplay {

  /** The identifier of the latest snapshot `commitUser` committed, if one is still kept. */
  def latestIdentifier(table: FileStoreTable, commitUser: String): Option[Long] = {
    val snapshots = table.snapshotManager
    val earliest = snapshots.earliestId().getOrElse(return None)
    var id = snapshots.latestId().getOrElse(return None)
    while (id >= earliest) {
      snapshots.read(id) match {
        case Some(s) if s.commitUser == commitUser && s.commitKind != Snapshot.Kind.Compact =>
          return Some(s.commitIdentifier)
        case _ => id -= 1
      }
    }
    None
  }

  def committed(table: FileStoreTable, commitUser: String, identifier: Long): Boolean =
    latestIdentifier(table, commitUser).exists(_ >= identifier)
}
