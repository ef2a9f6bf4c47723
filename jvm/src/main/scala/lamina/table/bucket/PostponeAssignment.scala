package lamina.table.bucket

import scala.collection.immutable.ArraySeq

import org.apache.spark.sql.catalyst.InternalRow

import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.commit.{CommitMessage, CommitOperation}
import lamina.table.manifest.ManifestEntry
import lamina.table.options.CoreOptions
import lamina.table.scan.{DataSplit, FileStoreScan, SequenceBases}
import lamina.table.sink.TableWriter

/** The compaction of a postpone-bucket table (`bucket` = -2) assigns the rows waiting in
 *  `bucket-postpone` to fixed buckets, as Paimon's does: a partition that has fixed buckets keeps its
 *  count, one with only waiting files gets `postpone.default-bucket-num` (not set: the engine's
 *  default parallelism), or a count by its size ([[newCount]]). The waiting records are
 *  taken as written (each file's records with their row kinds, files in the order they were created)
 *  and written like a new write into each partition's buckets: level-0 files whose sequence numbers
 *  follow the bucket's, so a waiting record beats the rows already in its bucket and the merge engine
 *  merges them on read and in compaction; a key's several waiting records are merged first, in
 *  their order. The waiting files go and the new ones come in one COMPACT snapshot
 *  ([[lamina.table.commit.FileStoreCommit.rescale]]): a waiting file that a concurrent commit removed,
 *  or a file added meanwhile to the fixed buckets of a partition being assigned (whose sequence numbers
 *  the new files' may repeat), is a conflict; files that arrive in bucket-postpone meanwhile wait for
 *  the next compaction, so a streaming writer never starves it. */
object PostponeAssignment {

  /** What one assignment rewrites, at snapshot `snapshotId`: `splits`, one per waiting file, in the
   *  order their records are taken (by creation time); `counts`, the bucket count of each partition
   *  with waiting files; `sequenceBases`, where each bucket's sequence numbers continue from; `kept`,
   *  the files of those partitions' fixed buckets, which the assignment's files are written beside. */
  final case class Plan(table: FileStoreTable, snapshotId: Option[Long], splits: Seq[DataSplit],
      counts: Map[ArraySeq[Byte], Int], sequenceBases: Map[SequenceBases.Key, Long], kept: Set[String] = Set.empty) {
    def isEmpty: Boolean = splits.isEmpty
    def files: Int = splits.size
  }

  /** The assignment of the waiting files of the partitions `partitions` selects; a partition without
   *  fixed buckets gets `postpone.default-bucket-num`, else `parallelism` (the engine's). */
  def plan(table: FileStoreTable, partitions: InternalRow => Boolean, parallelism: Int): Plan =
    table.snapshotManager.latest() match {
      case None => Plan(table, None, Seq.empty, Map.empty, Map.empty)
      case Some(latest) =>
        val store = table.manifestStore
        val live = new FileStoreScan(table, latest).liveEntries()
          .filter(e => partitions(store.decodePartition(e.partition)))
        val (waiting, fixed) = live.partition(_.bucket == FileStorePaths.PostponeBucket)
        val known = fixed.map(e => ArraySeq.unsafeWrapArray(e.partition) -> e.totalBuckets).toMap
        val records = waiting.groupMapReduce(e => ArraySeq.unsafeWrapArray(e.partition))(_.file.rowCount)(_ + _)
        val counts = records.map { case (p, n) => p -> known.getOrElse(p, newCount(table.options, n, parallelism)) }
        val splits =
          waiting.sortBy(e => (e.file.creationTimeMillis.getOrElse(0L), e.file.fileName)).map(splitOf(table, latest.id, _))
        val kept = fixed.filter(e => counts.contains(ArraySeq.unsafeWrapArray(e.partition))).map(_.file.fileName).toSet
        Plan(table, Some(latest.id), splits, counts, if (waiting.isEmpty) Map.empty else SequenceBases.of(table), kept)
    }

  /** The bucket count of a partition whose `records` all wait in bucket-postpone: with
   *  `postpone.target-bucket-rows`, one bucket per that many records (rounded up, at most
   *  `postpone.batch-write-fixed-bucket.max-parallelism`); else `postpone.default-bucket-num`, unset
   *  `parallelism`. Pure. */
  def newCount(options: Map[String, String], records: Long, parallelism: Int): Int =
    CoreOptions.PostponeTargetBucketRows.get(options) match {
      case Some(target) =>
        val cap = CoreOptions.PostponeBatchWriteFixedBucketMaxParallelism.getOrDefault(options)
        val buckets = records / target + (if (records % target == 0) 0 else 1)
        math.max(1L, math.min(cap.toLong, buckets)).toInt
      case None => CoreOptions.PostponeDefaultBucketNum.get(options).getOrElse(math.max(1, parallelism))
    }

  private def splitOf(table: FileStoreTable, snapshotId: Long, e: ManifestEntry): DataSplit = {
    val partition = table.manifestStore.decodePartition(e.partition)
    DataSplit(snapshotId, e.partition, e.bucket, e.totalBuckets,
      table.paths.bucketDir(partition, e.bucket).toString, Seq(e.file))
  }

  /** Commits the files `messages` written for `plan` and removes its waiting files, in one snapshot;
   *  None when nothing waited. */
  def commit(plan: Plan, messages: Seq[CommitMessage]): Option[Long] =
    if (plan.isEmpty) None
    else TableWriter.commitRescale(plan.table, plan.splits, messages, CommitOperation.Compact,
      "postpone compaction",
      plan.kept, _.bucket == FileStorePaths.PostponeBucket)
}

/** Writes the records of a postpone assignment where the engine it runs in places it (Spark jobs,
 *  for Lamina) and returns the messages of the files written, for [[PostponeAssignment.commit]]. */
trait PostponeTasks {
  def assign(plan: PostponeAssignment.Plan): Seq[CommitMessage]

  /** The engine's default parallelism: a new partition's bucket count when `postpone.default-bucket-num`
   *  is not set, as in Paimon's compaction on Spark. */
  def parallelism: Int
}
