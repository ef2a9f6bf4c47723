package lamina.mergetree

import lamina.dv.DeletionFile
import lamina.table.manifest.DataFileMeta

/** What the merge tree reads of one (partition, bucket): the directory its files are in, the files,
 *  and the deletion vectors of those files (by data file name). A scan's split is one
 *  (`lamina.table.scan.DataSplit`); the merge tree asks no more of it. */
trait BucketFiles {
  def bucketPath: String
  def files: Seq[DataFileMeta]
  def deletionFiles: Map[String, DeletionFile]
}
