package lamina.table.compact

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.{BadInputException, CommitConflictException}
import lamina.table.FileStoreTable
import lamina.table.commit.{CommitMessage, CommitOperation, FileStoreCommit}
import lamina.table.lifecycle.SnapshotExpiration
import lamina.table.scan.{DataSplit, FileStoreScan}
import lamina.table.sink.TableWriter
import lamina.table.snapshot.Snapshot
import lamina.table.sort.SortKey

/** Runs the rewrite of an append table's sort compaction where the engine places it (Spark jobs, for
 *  Lamina). */
trait AppendCompactTasks {

  /** Every row of the splits' files (without those their deletion vectors delete), sorted by `key`
   *  within its partition, written as new files (`newFiles`) rolled at `target-file-size`; the messages
   *  of the files written, in any order. */
  def sort(table: FileStoreTable, splits: Seq[DataSplit], key: SortKey): Seq[CommitMessage]
}

/** Sort compaction of append tables (`order_strategy` `order`, `zorder` or `hilbert` of `CALL
 *  sys.compact`, the compaction job and the Python API; bucket-unaware tables only, as Paimon's): every
 *  file of the selected partitions is rewritten sorted by the key and one OVERWRITE snapshot (Paimon's
 *  kind for a sort compaction; operation COMPACT) replaces exactly the files read. It fails with a
 *  conflict, committing nothing, when a concurrent commit removed a file it read or marked rows of one
 *  deleted; files added meanwhile stay. (Compaction without an order packs files per bucket:
 *  [[lamina.table.compact.AppendCompaction]].) */
object SortCompaction {

  def sort(table: FileStoreTable, key: SortKey, partitionFilter: Option[InternalRow => Boolean],
      tasks: AppendCompactTasks): Option[Long] = {
    if (table.numBuckets != -1)
      throw new BadInputException(s"order_strategy '${key.strategy.name}' sorts bucket-unaware append tables " +
        s"(bucket = -1) only: table ${table.name} has ${table.numBuckets} fixed buckets, whose rows a sort would move")
    val snapshot = table.snapshotManager.latest().getOrElse(return None)
    val store = table.manifestStore
    val splits = new FileStoreScan(table, snapshot).plan()
      .filter(s => partitionFilter.forall(f => f(store.decodePartition(s.partition))))
    if (splits.isEmpty) return None
    val msgs = tasks.sort(table, splits, key)
    val id =
      try new FileStoreCommit(table, FileStoreCommit.newUser(), CommitOperation.Compact.properties)
          .rewrite(splits, msgs, Snapshot.Kind.Overwrite)
      catch {
        case e: CommitConflictException =>
          // no snapshot names the written files
          TableWriter.deleteFiles(table, msgs)
          throw e
      }
    if (id.isDefined) SnapshotExpiration.afterCommit(table)
    id
  }
}
