package lamina.table.bucket

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.format.DataFileWriters
import lamina.mergetree.KeyValueFileWriter
import lamina.table.FileStoreTable
import lamina.table.commit.{CommitMessage, CommitOperation}
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.scan.{DataSplit, FileStoreScan}
import lamina.table.sink.TableWriter

/** `CALL sys.rescale`: rewrites partitions of a fixed-bucket table into another bucket count in one
 *  commit. Each partition's rows, as the latest snapshot holds them (merged, deletion vectors
 *  applied), go to the buckets the new count gives their bucket key; the old files go in the same
 *  COMPACT snapshot ([[lamina.table.commit.FileStoreCommit.rescale]]), so readers see either layout
 *  whole, and time travel to earlier snapshots reads the old files.
 *
 *  A primary-key partition's new buckets each hold one sorted run at the top level, with the
 *  records' own sequence numbers and kinds (as a full compaction writes them): later writes order
 *  after them, and deletion-vector readers, which skip level 0, see every row. An append table's
 *  rows keep their order per bucket key (one old bucket held all rows of a key). */
object BucketRescale {

  /** What one rescale rewrites: the splits, at snapshot `snapshotId`, of the partitions not yet in
   *  `bucketNum` buckets; `matched` counts the partitions selected, those already there too. */
  final case class Plan(table: FileStoreTable, snapshotId: Option[Long], bucketNum: Int, splits: Seq[DataSplit],
      matched: Int) {
    def partitions: Int = splits.map(s => java.nio.ByteBuffer.wrap(s.partition)).distinct.size
  }

  def plan(table: FileStoreTable, partitions: InternalRow => Boolean, bucketNum: Int): Plan = {
    requireFixed(table, bucketNum)
    table.snapshotManager.latest() match {
      case None => Plan(table, None, bucketNum, Seq.empty, 0)
      case Some(latest) =>
        val store = table.manifestStore
        val splits = new FileStoreScan(table, latest).plan()
          .filter(s => partitions(store.decodePartition(s.partition)))
        // a partition already in the new count stays as it is (its files, and its sequence of runs)
        val byPartition = splits.groupBy(s => java.nio.ByteBuffer.wrap(s.partition)).values
        val moving = byPartition.filter(_.exists(_.totalBuckets != bucketNum)).flatten.toSeq
        Plan(table, Some(latest.id), bucketNum, moving, byPartition.size)
    }
  }

  /** A rescale is for fixed-bucket tables, into a count above 0. */
  def requireFixed(table: FileStoreTable, bucketNum: Int): Unit = {
    if (!table.hasFixedBucketCounts)
      throw new BadInputException(s"Rescale of table ${table.name}: only tables with a fixed bucket count can be " +
        s"rescaled; its 'bucket' is ${table.numBuckets}" +
        (if (table.numBuckets == -1) " (its buckets size themselves)" else ""))
    if (bucketNum <= 0)
      throw new BadInputException(s"Rescale of table ${table.name}: bucket_num must be above 0, got $bucketNum")
  }

  /** Commits the rewritten files `messages` of `plan` in one snapshot; None when there was nothing to
   *  rescale. */
  def commit(plan: Plan, messages: Seq[CommitMessage]): Option[Long] =
    if (plan.splits.isEmpty) None
    else TableWriter.commitRescale(plan.table, plan.splits, messages, CommitOperation.Rescale)

  /** The writer of one rescale task of a primary-key table: records arrive grouped by (partition,
   *  bucket) and sorted by key in each; each group becomes one sorted run at the top level. Every file
   *  written is in [[finish]]'s messages or removed by [[abort]]. */
  final class SortedRunWriter(table: FileStoreTable, writers: DataFileWriters, bucketNum: Int) {
    private val files = table.keyValueFiles(writers)
    private val topLevel = CoreOptions.numLevels(table.options) - 1
    private val store = table.manifestStore
    private var partition: Array[Byte] = _
    private var bucket = -1
    private var current: KeyValueFileWriter = _
    private val done = Seq.newBuilder[CommitMessage]

    def write(partition: Array[Byte], bucket: Int, value: InternalRow, kind: Byte, sequence: Long): Unit = {
      if (current == null || bucket != this.bucket || !java.util.Arrays.equals(partition, this.partition)) {
        close()
        this.partition = partition
        this.bucket = bucket
        current = files.writer(partition, table.paths.newFilesDir(store.decodePartition(partition), bucket), bucket,
          level = topLevel, fileSource = DataFileMeta.FileSourceCompact)
      }
      current.write(value, kind, sequence)
    }

    private def close(): Unit = if (current != null) {
      val written = current.finish()
      current = null
      if (written.nonEmpty) done += CommitMessage(partition, bucket, bucketNum, written)
    }

    def finish(): Seq[CommitMessage] = { close(); done.result() }

    def abort(): Unit = {
      if (current != null) current.abort()
      current = null
      TableWriter.deleteFiles(table, done.result())
    }
  }
}

/** Runs the rewrite of a rescale where the engine it runs in places it (Spark jobs, for Lamina) and
 *  returns the messages of the files written, for [[BucketRescale.commit]]. */
trait RescaleTasks {
  def rewrite(plan: BucketRescale.Plan): Seq[CommitMessage]
}
