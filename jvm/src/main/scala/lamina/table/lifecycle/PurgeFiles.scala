package lamina.table.lifecycle

import lamina.table.FileStoreTable
import lamina.table.commit.CommitOperation
import lamina.table.consumer.ConsumerManager
import lamina.table.options.TableOperation
import lamina.table.sink.TableWriter

/** `CALL sys.purge_files`, as Paimon's `FileStoreTable.purgeFiles`: empties a table for good, keeping
 *  its schemas and one empty snapshot, so that writes go on at the next snapshot id. In Paimon's
 *  order: every branch, tag and consumer is deleted; a TRUNCATE commits the empty table; every
 *  snapshot but that latest one expires (whatever the retention options, consumers or running
 *  readers' leases); the changelogs kept longer than snapshots go; then every file no snapshot refers
 *  to, whatever its age (Paimon's orphan clean with no margin: a write running meanwhile loses its
 *  files and fails to commit, or commits files that are gone). Not undone by anything. */
object PurgeFiles {

  def purge(table: FileStoreTable, now: => Long = System.currentTimeMillis()): Unit = {
    table.require(TableOperation.Write)
    table.branchManager.names().foreach(Branches.delete(table, _))
    table.snapshotManager.tags.all().map(_._1).foreach(Tags.delete(table, _))
    val consumers = ConsumerManager.of(table)
    consumers.all().foreach { case (id, _, _) => consumers.delete(id) }
    TableWriter.commitOverwrite(table, Seq.empty, None, operation = CommitOperation.Truncate)
    val snapshots = table.snapshotManager
    for (earliest <- snapshots.earliestId(); latest <- snapshots.latestId())
      new SnapshotExpiration(table).expireUntil(earliest, latest)
    val changelogs = table.changelogManager.dir
    if (table.fileIO.exists(changelogs)) table.fileIO.deleteDirectory(changelogs)
    new OrphanFiles(table).remove(now, dryRun = false)
  }
}
