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

  /** Tables whose readers skip level 0 (first-row) get the level-0 files of the buckets this
   *  commit touched compacted at once, so that no committed row stays invisible. */
  def afterCommit(table: FileStoreTable, msgs: Seq[CommitMessage], commitUser: String): Unit = {
    if (lamina.spark.read.KeyValueReaders.skipsLevel0(table)) {
      val touched = msgs.map(m => (java.nio.ByteBuffer.wrap(m.partition), m.bucket)).distinct
      lamina.spark.compact.Compactor.compactBuckets(table, Some(touched.toSet), full = true, commitUser)
    }
  }
}
