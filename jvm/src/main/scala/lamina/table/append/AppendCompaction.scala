package lamina.table.append

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.{BadInputException, CommitConflictException}
import lamina.table.FileStoreTable
import lamina.table.commit.{CommitMessage, CommitOperation, FileStoreCommit}
import lamina.table.lifecycle.SnapshotExpiration
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.scan.{DataSplit, FileStoreScan}
import lamina.table.sink.TableWriter
import lamina.table.snapshot.Snapshot
import lamina.table.sort.SortKey

/** Runs the rewrites of an append table's compaction where the engine places them (Spark jobs, for
 *  Lamina). Both return the messages of the files written, in any order. */
trait AppendCompactTasks {

  /** Each group's files rewritten into files of about `target-file-size` in the group's bucket: one
   *  message per group, the group in `compactBefore`, the new files in `compactAfter`. */
  def pack(table: FileStoreTable, groups: Seq[DataSplit]): Seq[CommitMessage]

  /** Every row of the splits' files, sorted by `key` within its partition, written as new files
   *  (`newFiles`) rolled at `target-file-size`. */
  def sort(table: FileStoreTable, splits: Seq[DataSplit], key: SortKey): Seq[CommitMessage]
}

/** Compaction of append tables (`CALL sys.compact`, the compaction job and the Python API), as
 *  Paimon's: without an order, per bucket the small files (below `target-file-size` times
 *  `compaction.small-file-ratio`) are packed into files of `target-file-size` ([[packs]]) and one
 *  COMPACT snapshot replaces them; with an order (`order`, `zorder`, `hilbert`; bucket-unaware tables
 *  only), every file of the selected partitions is rewritten sorted by the key and one OVERWRITE
 *  snapshot (Paimon's kind for a sort compaction; operation COMPACT) replaces exactly the files read.
 *  Either fails with a conflict, committing nothing, when a concurrent commit removed a file it read;
 *  files added meanwhile stay. */
object AppendCompaction {

  def compact(table: FileStoreTable, key: Option[SortKey], full: Boolean, partitionFilter: Option[InternalRow => Boolean],
      tasks: AppendCompactTasks): Option[Long] = {
    if (key.nonEmpty && table.numBuckets != -1)
      throw new BadInputException(s"order_strategy '${key.get.strategy.name}' sorts bucket-unaware append tables " +
        s"(bucket = -1) only: table ${table.name} has ${table.numBuckets} fixed buckets, whose rows a sort would move")
    val snapshot = table.snapshotManager.latest().getOrElse(return None)
    val store = table.manifestStore
    val splits = new FileStoreScan(table, snapshot).plan()
      .filter(s => partitionFilter.forall(f => f(store.decodePartition(s.partition))))
    val user = java.util.UUID.randomUUID().toString
    key match {
      case None =>
        val options = table.options
        val groups = splits.flatMap(s => packs(s.files, options, full).map(g => s.copy(files = g)))
        if (groups.isEmpty) return None
        committed(table, tasks.pack(table, groups), m => m.compactAfter)(
          new FileStoreCommit(table, user).append(_))
      case Some(k) =>
        if (splits.isEmpty) return None
        committed(table, tasks.sort(table, splits, k), m => m.newFiles)(msgs =>
          new FileStoreCommit(table, user, CommitOperation.Compact.properties)
            .rewrite(splits, msgs, Snapshot.Kind.Overwrite))
    }
  }

  /** Commits, expiring snapshots after; on a conflict the written files go (no snapshot names them). */
  private def committed(table: FileStoreTable, msgs: Seq[CommitMessage], written: CommitMessage => Seq[DataFileMeta])(
      commit: Seq[CommitMessage] => Option[Long]): Option[Long] = {
    val id =
      try commit(msgs)
      catch {
        case e: CommitConflictException =>
          TableWriter.deleteFiles(table, msgs.map(m => m.copy(newFiles = written(m), compactAfter = Seq.empty)))
          throw e
      }
    if (id.isDefined) SnapshotExpiration.afterCommit(table)
    id
  }

  /** The groups of one bucket's files that packing rewrites, as Paimon's append compaction picks them:
   *  the small files, smallest first, cut into a group whenever one holds two files or more and at
   *  least twice `target-file-size`; the rest form a last group when it has `compaction.min.file-num`
   *  files (any two for a full compaction). Pure. */
  def packs(files: Seq[DataFileMeta], options: Map[String, String], full: Boolean): Seq[Seq[DataFileMeta]] = {
    val target = CoreOptions.TargetFileSize.getOrDefault(options)
    val small = (target * CoreOptions.CompactionSmallFileRatio.getOrDefault(options)).toLong
    val minFiles = if (full) 2 else CoreOptions.CompactionMinFileNum.getOrDefault(options)
    val out = Seq.newBuilder[Seq[DataFileMeta]]
    var bin = Vector.empty[DataFileMeta]
    var size = 0L
    files.filter(_.fileSize < small).sortBy(_.fileSize).foreach { f =>
      bin :+= f; size += f.fileSize
      if (bin.size > 1 && size >= 2 * target) { out += bin; bin = Vector.empty; size = 0 }
    }
    if (bin.size >= minFiles) out += bin
    out.result()
  }
}
