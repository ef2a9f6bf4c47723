package lamina.table.scan

import lamina.dv.DeletionFile
import lamina.mergetree.BucketFiles
import lamina.table.manifest.DataFileMeta

/** The live files of one (partition, bucket) that one reader task reads together, with the
 *  deletion vectors of the snapshot's index manifest for them (by data file name).
 *  Invariant: all files belong to the same partition and bucket. */
final case class DataSplit(
    snapshotId: Long,
    partition: Array[Byte],
    bucket: Int,
    totalBuckets: Int,
    bucketPath: String,
    files: Seq[DataFileMeta],
    deletionFiles: Map[String, DeletionFile] = Map.empty)
  extends BucketFiles with Serializable {
  def rowCount: Long = files.map(_.rowCount).sum
  def totalSize: Long = files.map(_.fileSize).sum
}
