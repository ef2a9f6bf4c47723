package lamina.spark.write

import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.scan.FileStoreScan

/** Driver-side steps of writes to primary-key tables. */
object PrimaryKeyWrites {
  /** Highest committed sequence number per (serialized partition, bucket): new records continue
   *  above it, so later writes win. */
  def sequenceBases(table: FileStoreTable): Map[(scala.collection.immutable.ArraySeq[Byte], Int), Long] =
    table.snapshotManager.latest() match {
      case None => Map.empty
      case Some(s) =>
        new FileStoreScan(table, s).liveEntries()
          .groupBy(e => (scala.collection.immutable.ArraySeq.unsafeWrapArray(e.partition), e.bucket))
          .map { case (k, es) => k -> es.map(_.file.maxSequenceNumber).max }
    }

  /** Compaction after a write, in its own COMPACT snapshot. Tables whose readers skip level 0
   *  (first-row) get the buckets this commit touched fully compacted at once, so that no committed
   *  row stays invisible; other tables get universal compaction of the touched buckets when their
   *  sorted runs call for it, unless `write-only` is set. */
  def afterCommit(table: FileStoreTable, msgs: Seq[CommitMessage], commitUser: String): Unit = {
    val touched = msgs.map(m => (java.nio.ByteBuffer.wrap(m.partition), m.bucket)).distinct.toSet
    if (touched.isEmpty) return
    val latest = table.withSchema(table.schemaManager.latest().getOrElse(table.schema))
    if (lamina.spark.read.KeyValueReaders.skipsLevel0(latest))
      lamina.spark.compact.Compactor.compactBuckets(latest, Some(touched), full = true, commitUser)
    else if (!lamina.mergetree.MergeTreeOptions.WriteOnly.getOrDefault(latest.options))
      lamina.spark.compact.Compactor.compactBuckets(latest, Some(touched), full = false, commitUser)
  }
}
