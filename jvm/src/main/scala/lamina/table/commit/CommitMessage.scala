package lamina.table.commit

import lamina.table.manifest.DataFileMeta

/** What one writer task produced for one (partition, bucket): new files, files it replaced
 *  (compaction), with the bucket's new deletion-vector index when a compaction changed it, the
 *  changelog files of its records (`changelog-producer` = input) and those of a compaction
 *  (`compactChangelog`: lookup and full-compaction producers), which the APPEND and COMPACT snapshots
 *  list in their changelog manifest lists. Travels from executors to the driver. */
final case class CommitMessage(
    partition: Array[Byte],
    bucket: Int,
    totalBuckets: Int,
    newFiles: Seq[DataFileMeta],
    compactBefore: Seq[DataFileMeta] = Seq.empty,
    compactAfter: Seq[DataFileMeta] = Seq.empty,
    indexChange: Option[IndexChange] = None,
    changelogFiles: Seq[DataFileMeta] = Seq.empty,
    compactChangelog: Seq[DataFileMeta] = Seq.empty)
  extends Serializable
