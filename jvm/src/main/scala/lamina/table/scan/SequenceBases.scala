package lamina.table.scan

import scala.collection.immutable.ArraySeq

import lamina.errors.NotFoundException
import lamina.table.FileStoreTable
import lamina.table.manifest.ManifestEntry
import lamina.table.snapshot.Snapshot

/** Where the sequence numbers of a primary-key table's next write start: per (serialized partition,
 *  bucket), a number at least the highest sequence number committed there, so later writes win.
 *
 *  An upper bound is all a writer needs (sequence numbers only have to grow per bucket), and the
 *  highest number ever added to a bucket is one: a file that is deleted or rewritten never lowers it.
 *  So the bounds of a table, once read from all its live files, are brought up to date from the delta
 *  manifests of the snapshots committed since, which hold every file added since: a write reads what
 *  changed since the last write in this JVM, not the whole table. Kept per table directory for the
 *  [[MaxTables]] tables written last; read in full the first time, when a snapshot in between is gone,
 *  or when more than [[MaxDeltaSnapshots]] were committed since. */
object SequenceBases {
  type Key = (ArraySeq[Byte], Int)

  /** Beyond this many snapshots to catch up on, reading the live files is the cheaper way. */
  val MaxDeltaSnapshots = 64

  /** Tables whose bounds stay known. */
  val MaxTables = 128

  private final case class Known(snapshotId: Long, bases: Map[Key, Long])

  private val known = new java.util.LinkedHashMap[String, Known](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[String, Known]): Boolean = size() > MaxTables
  }

  /** The bounds at the table's latest snapshot; empty for a table without snapshots. */
  def of(table: FileStoreTable): Map[Key, Long] = table.snapshotManager.latest() match {
    case None => Map.empty
    case Some(latest) =>
      val dir = table.branchPath.toString
      val before = known.synchronized(Option(known.get(dir)))
      val bases = before
        .filter(k => k.snapshotId <= latest.id && latest.id - k.snapshotId <= MaxDeltaSnapshots)
        .flatMap(k => caughtUp(table, k, latest.id))
        .getOrElse(ofLiveFiles(table, latest))
      known.synchronized(known.put(dir, Known(latest.id, bases)))
      bases
  }

  /** The highest sequence number of each (partition, bucket) among the live files of `snapshot`. */
  def ofLiveFiles(table: FileStoreTable, snapshot: Snapshot): Map[Key, Long] =
    raise(Map.empty, new FileStoreScan(table, snapshot).liveEntries())

  /** `from`'s bounds raised by the files added in the snapshots after it up to `to`; None when one of
   *  those snapshots or its delta manifests can no longer be read. */
  private def caughtUp(table: FileStoreTable, from: Known, to: Long): Option[Map[Key, Long]] = {
    val snapshots = table.snapshotManager
    val store = table.manifestStore
    try Some(((from.snapshotId + 1) to to).foldLeft(from.bases) { (bases, id) =>
        raise(bases, store.readAllEntries(Seq(snapshots.snapshot(id).deltaManifestList)).filter(_.isAdd))
      })
    catch { case _: java.io.FileNotFoundException | _: NotFoundException => None }
  }

  private def raise(bases: Map[Key, Long], added: IterableOnce[ManifestEntry]): Map[Key, Long] =
    added.iterator.foldLeft(bases) { (m, e) =>
      val k = (ArraySeq.unsafeWrapArray(e.partition), e.bucket)
      val seq = e.file.maxSequenceNumber
      if (m.get(k).exists(_ >= seq)) m else m.updated(k, seq)
    }
}
