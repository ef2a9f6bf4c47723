package lamina.table.commit

import lamina.table.manifest.IndexFileMeta

/** A bucket's deletion-vector index after a compaction: the names of the index files that held the
 *  bucket's vectors in the snapshot the compaction planned from (`before`), and the files that hold
 *  them now (`after`; none when no vector is left). Travels from executors to the driver. */
final case class IndexChange(before: Set[String], after: Seq[IndexFileMeta]) extends Serializable
