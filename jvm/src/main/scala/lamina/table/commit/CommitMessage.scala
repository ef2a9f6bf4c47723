package lamina.table.commit

import lamina.table.bucket.HashIndexChange
import lamina.table.manifest.{DataFileMeta, IndexFileMeta}

/** What one writer task produced for one (partition, bucket): new files, files it replaced
 *  (compaction), with the bucket's new deletion-vector index when a compaction changed it, the
 *  changelog files of its records (`changelog-producer` = input) and those of a compaction
 *  (`compactChangelog`: lookup and full-compaction producers), which the APPEND and COMPACT snapshots
 *  list in their changelog manifest lists, and, in a dynamic-bucket table, the bucket's new hash index
 *  when the write gave it new keys (`hashIndex`). Travels from executors to the driver. */
final case class CommitMessage(
    partition: Array[Byte],
    bucket: Int,
    totalBuckets: Int,
    newFiles: Seq[DataFileMeta],
    compactBefore: Seq[DataFileMeta] = Seq.empty,
    compactAfter: Seq[DataFileMeta] = Seq.empty,
    indexChange: Option[IndexChange] = None,
    changelogFiles: Seq[DataFileMeta] = Seq.empty,
    compactChangelog: Seq[DataFileMeta] = Seq.empty,
    hashIndex: Option[HashIndexChange] = None)
  extends Serializable {

  /** The data and changelog files this message's writer created, the only ones a commit that does not
   *  land may remove. A compaction output that keeps an input's name (a file upgraded to a higher
   *  level under the same name) was not created: it is the input, which a snapshot references. */
  def createdFiles: Seq[DataFileMeta] = {
    val inputs = compactBefore.map(_.fileName).toSet
    (newFiles ++ changelogFiles ++ compactAfter ++ compactChangelog).filterNot(f => inputs.contains(f.fileName))
  }

  /** The index files this message's writer wrote: the deletion-vector index files of its compaction
   *  (those it carried over from the snapshot it planned from left out), its new hash index. */
  def createdIndexFiles: Seq[IndexFileMeta] =
    indexChange.toSeq.flatMap(c => c.after.filterNot(f => c.before.contains(f.fileName))) ++ hashIndex.map(_.after)
}
