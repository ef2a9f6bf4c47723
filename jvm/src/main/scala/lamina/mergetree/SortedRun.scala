package lamina.mergetree

import lamina.table.manifest.DataFileMeta

/** One sorted run of the LSM tree: files of one level, in ascending key order.
 *  Invariant: each file's max key is below the next file's min key, so the run holds every key at
 *  most once and yields its records in (key, sequence number) order ([[Levels.validate]] checks it). */
final case class SortedRun(level: Int, files: IndexedSeq[DataFileMeta]) {
  def totalSize: Long = files.iterator.map(_.fileSize).sum
  def minSequenceNumber: Long = files.iterator.map(_.minSequenceNumber).min
  def maxSequenceNumber: Long = files.iterator.map(_.maxSequenceNumber).max
}
