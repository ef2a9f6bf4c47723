package lamina.table.scan

import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.ManifestEntry
import lamina.table.snapshot.Snapshot

/** Plans the reading of what snapshots changed ([[ChangeSource]]), as Paimon's incremental and
 *  streaming scans do: the ADDs of each APPEND snapshot's delta, or each snapshot's changelog files.
 *  Other commits (COMPACT, OVERWRITE) change no rows a change reader shows, and contribute nothing.
 *  Each split holds the files of one (partition, bucket) of one snapshot, in sequence order; its
 *  records are read as written, without merging. */
final class ChangeScan(table: FileStoreTable) {
  private val store = table.manifestStore

  /** The splits of snapshot `s`'s changes, in (partition, bucket) order. */
  def changesOf(s: Snapshot, source: ChangeSource): Seq[DataSplit] = {
    val entries: Seq[ManifestEntry] = source match {
      case ChangeSource.Delta if s.commitKind == Snapshot.Kind.Append =>
        store.readList(s.deltaManifestList).flatMap(m => store.readManifest(m.fileName)).filter(_.isAdd)
      case ChangeSource.Changelog =>
        s.changelogManifestList.toSeq.flatMap(l => store.readList(l).flatMap(m => store.readManifest(m.fileName)))
          .filter(_.isAdd)
      case _ => Seq.empty
    }
    FileLayoutCheck.check(table, entries)
    // as in batch reads, rows waiting in bucket-postpone are read once a compaction assigned them
    entries.filter(_.bucket != FileStorePaths.PostponeBucket).groupBy(e => (java.nio.ByteBuffer.wrap(e.partition), e.bucket))
      .toSeq.map { case (_, es) =>
        val e = es.head
        val dir = table.paths.bucketDir(store.decodePartition(e.partition), e.bucket)
        DataSplit(s.id, e.partition, e.bucket, e.totalBuckets, dir.toString,
          es.map(_.file).sortBy(f => (f.minSequenceNumber, f.fileName)))
      }.sortBy(_.bucketPath)
  }

  /** The splits of the changes of snapshots `startExclusive` + 1 to `endInclusive`, oldest first;
   *  each snapshot of the range must still exist, as a snapshot, a kept changelog or a tag. */
  def between(startExclusive: Long, endInclusive: Long, source: ChangeSource): Seq[DataSplit] =
    (startExclusive + 1 to endInclusive).flatMap(id =>
      changesOf(changes(id).getOrElse(table.snapshotManager.snapshot(id)), source))

  /** Snapshot `id` as far as its changes go: its snapshot file, or once it expired its kept changelog
   *  (Paimon's streaming and incremental scans read `changelog/changelog-<id>` below the earliest
   *  snapshot). Only its changelog manifests are left to read in the latter. */
  def changes(id: Long): Option[Snapshot] =
    table.snapshotManager.read(id).orElse(table.changelogManager.read(id).map(_.snapshot))
}
