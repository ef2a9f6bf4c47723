package lamina.table.bucket

import lamina.table.manifest.IndexFileMeta

/** A dynamic bucket's hash index after a write gave it new keys: `after` holds every hash of the
 *  bucket, replacing the files `replaced` (the bucket's index in the snapshot the write read, none
 *  for a new bucket). `partitionRead` names every hash index file of the partition in that snapshot:
 *  a commit finding others there now conflicts, since a concurrent write may have put one of this
 *  write's new keys in another bucket. Travels from executors to the driver. */
final case class HashIndexChange(partitionRead: Set[String], replaced: Set[String], after: IndexFileMeta) extends Serializable
