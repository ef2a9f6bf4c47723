package lamina.table.scan

import lamina.errors.NotFoundException
import lamina.table.FileStoreTable
import lamina.table.manifest.ManifestEntry
import lamina.table.snapshot.Snapshot

/** A value a write starts from that follows from the files added to and removed from a table: read
 *  once from the live files of the latest snapshot, then brought up to date from the delta manifests
 *  of the snapshots committed since (which hold every file added and removed since), so that a write
 *  reads what changed since the last write in this JVM, not the whole table. Kept per table directory for the
 *  [[AddedFilesFold.MaxTables]] tables written last; read in full the first time, when a snapshot in
 *  between is gone, or when more than [[AddedFilesFold.MaxDeltaSnapshots]] were committed since. */
abstract class AddedFilesFold[S] {
  import AddedFilesFold.{Known, MaxDeltaSnapshots, MaxTables}

  /** The value of a table without files. */
  protected def empty: S

  /** `state` with the `changes` taken in: the ADDs of the live files, or the ADDs and DELETEs of a
   *  later snapshot's delta, in order. */
  protected def add(state: S, changes: IterableOnce[ManifestEntry]): S

  private val known = new java.util.LinkedHashMap[String, Known[S]](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[String, Known[S]]): Boolean = size() > MaxTables
  }

  /** The value at the table's latest snapshot; [[empty]] for a table without snapshots. */
  def of(table: FileStoreTable): S = table.snapshotManager.latest() match {
    case None => empty
    case Some(latest) =>
      val dir = table.branchPath.toString
      val before = known.synchronized(Option(known.get(dir)))
      val state = before
        .filter(k => k.snapshotId <= latest.id && latest.id - k.snapshotId <= MaxDeltaSnapshots)
        .flatMap(k => caughtUp(table, k, latest.id))
        .getOrElse(ofLiveFiles(table, latest))
      known.synchronized(known.put(dir, Known(latest.id, state)))
      state
  }

  /** The value of the live files of `snapshot`. */
  def ofLiveFiles(table: FileStoreTable, snapshot: Snapshot): S =
    add(empty, new FileStoreScan(table, snapshot).liveEntries())

  /** `from` with the files added and removed in the snapshots after it up to `to`; None when one of those
   *  snapshots or its delta manifests can no longer be read. */
  private def caughtUp(table: FileStoreTable, from: Known[S], to: Long): Option[S] = {
    val snapshots = table.snapshotManager
    val store = table.manifestStore
    try Some(((from.snapshotId + 1) to to).foldLeft(from.state) { (state, id) =>
        add(state, store.readAllEntries(Seq(snapshots.snapshot(id).deltaManifestList)))
      })
    catch { case _: java.io.FileNotFoundException | _: NotFoundException => None }
  }
}

object AddedFilesFold {

  /** What is known of one table: its value at snapshot `snapshotId`. */
  private final case class Known[S](snapshotId: Long, state: S)

  /** Beyond this many snapshots to catch up on, reading the live files is the cheaper way. */
  val MaxDeltaSnapshots = 64

  /** Tables whose values stay known. */
  val MaxTables = 128
}
