package lamina.table.scan

import lamina.table.FileStoreTable

/** The files of one (partition, bucket) at two snapshots, where they differ: a primary-key table's
 *  live files at each (read merged and compared by key), an append table's files only one of them
 *  holds (removed rows and added rows). Invariant: both splits name the same partition and bucket. */
final case class DiffSplit(before: DataSplit, after: DataSplit) extends Serializable

/** Plans `incremental-between-scan-mode = diff`: the difference between the table at one snapshot
 *  and at another, as Paimon's diff reads it, bucket by bucket; buckets whose files (and deletion
 *  vectors) are the same at both are skipped. Snapshot id 0 stands for the empty table before the
 *  first snapshot. */
final class DiffScan(table: FileStoreTable) {
  private type Key = (java.nio.ByteBuffer, Int)

  def between(start: Long, end: Long): Seq[DiffSplit] = {
    val before = splitsAt(start)
    val after = splitsAt(end)
    (before.keySet ++ after.keySet).toSeq.flatMap { k =>
      val template = after.getOrElse(k, before(k))
      def empty(id: Long) = template.copy(snapshotId = id, files = Seq.empty, deletionFiles = Map.empty)
      val b = before.getOrElse(k, empty(start))
      val a = after.getOrElse(k, empty(end))
      val same = b.files.map(_.fileName).toSet == a.files.map(_.fileName).toSet && b.deletionFiles == a.deletionFiles
      if (same) None
      else if (table.isPrimaryKeyTable) Some(DiffSplit(b, a))
      else {
        val (bNames, aNames) = (b.files.map(_.fileName).toSet, a.files.map(_.fileName).toSet)
        Some(DiffSplit(b.copy(files = b.files.filterNot(f => aNames(f.fileName))),
            a.copy(files = a.files.filterNot(f => bNames(f.fileName)))))
      }
    }.sortBy(_.after.bucketPath)
  }

  private def splitsAt(id: Long): Map[Key, DataSplit] =
    if (id < 1) Map.empty
    else new FileStoreScan(table, table.snapshotManager.snapshot(id)).plan()
      .map(s => (java.nio.ByteBuffer.wrap(s.partition), s.bucket) -> s).toMap
}
