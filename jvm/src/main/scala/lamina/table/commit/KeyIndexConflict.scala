package lamina.table.commit

import lamina.errors.CommitConflictException
import lamina.table.FileStoreTable
import lamina.table.snapshot.Snapshot

/** The commit rule of a cross-partition upsert write: its key index was built from snapshot `base`
 *  (None: from an empty table), so a snapshot after it that wrote rows (any kind but COMPACT and
 *  ANALYZE, which move no key) may have put one of the write's keys in another partition, and
 *  committing would leave the key in two partitions. Such a commit is a [[CommitConflictException]];
 *  the statement can be run again. Snapshots expired in between count as writes. */
object KeyIndexConflict {

  def check(table: FileStoreTable, base: Option[Long], latest: Option[Snapshot]): Unit = {
    val from = base.getOrElse(0L) + 1
    latest.filter(_.id >= from).foreach { l =>
      val snapshots = table.snapshotManager
      val writer = (from to l.id).find { id =>
        !snapshots.exists(id) || {
          val kind = (if (id == l.id) l else snapshots.snapshot(id)).commitKind
          kind != Snapshot.Kind.Compact && kind != Snapshot.Kind.Analyze
        }
      }
      writer.foreach { id =>
        throw new CommitConflictException(s"Commit to table ${table.name} conflicts with a concurrent commit: " +
          s"snapshot $id wrote rows after snapshot ${base.fold("(none)")(_.toString)}, which this write's key " +
          "index was built from, and a key written by both could end up in two partitions (cross-partition " +
          "upsert). Nothing was committed; run the statement again.")
      }
    }
  }
}
