package lamina.table.compact

import lamina.table.manifest.DataFileMeta
import lamina.table.scan.DataSplit

/** One bucket's compaction: the files to merge and the level to write. `dropDeletes`: no run is
 *  left at the output level or above, so deleted keys can be left out of the output. */
final case class BucketCompaction(split: DataSplit, inputs: Seq[DataFileMeta], outputLevel: Int, dropDeletes: Boolean)
