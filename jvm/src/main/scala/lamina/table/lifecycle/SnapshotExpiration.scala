package lamina.table.lifecycle

import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import lamina.table.FileStoreTable
import lamina.table.consumer.ConsumerManager
import lamina.table.lease.LeaseKeeper
import lamina.table.options.CoreOptions
import lamina.table.snapshot.Changelog

/** Expires the oldest snapshots of one table (of one branch), with the files no kept snapshot, tag or
 *  other branch ([[OtherBranches]]) uses, in the
 *  order Paimon's expiration follows, so that a crash at any point leaves every kept snapshot and tag
 *  readable and a rerun finishes the job:
 *  1. data files that the deltas of the expired snapshots and of the first kept one remove for good
 *     (no tag holds them), extra files they take from files they keep (an index file replaced by
 *     `rewrite_file_index`), and the expired snapshots' changelog files;
 *  2. manifest lists, manifests, index manifests and index files of the expired snapshots that
 *     neither the first kept snapshot nor a tag refers to;
 *  3. the snapshot files, oldest first, then the EARLIEST hint.
 *  When the table keeps changelogs longer than snapshots ([[ChangelogExpiration.decoupled]]), an
 *  expiring snapshot's changelog files, changelog manifest list and manifests stay, and its JSON is
 *  written to `changelog/changelog-<id>` just before its snapshot file goes (Paimon's order).
 *  A concurrent commit only ever builds on the latest snapshot, which is always kept (retain_min >= 1),
 *  so it never refers to a file this removes. */
final class SnapshotExpiration(table: FileStoreTable) {
  private val snapshots = table.snapshotManager
  private val refs = new FileReferences(table)
  private val keepChangelogs = ChangelogExpiration.decoupled(table.options)

  /** Expires what `policy` allows at time `now`, keeping every snapshot a consumer still needs (after
   *  removing the consumers idle past `consumer.expiration-time`), and never a snapshot from the oldest
   *  one a running reader holds a lease on ([[lamina.table.lease.LeaseManager]], judged by the wall
   *  clock) on; returns how many snapshots were expired. Lease files lapsed long ago are removed. */
  def expire(policy: RetentionPolicy, now: Long = System.currentTimeMillis()): Int = {
    val latest = snapshots.latestId().getOrElse(return 0)
    val earliest = snapshots.earliestId().getOrElse(return 0)
    val leases = table.leaseManager
    // this JVM's finished readers of this table let go at once (those of other tables wait for the keeper's thread)
    LeaseKeeper.Default.sweep(_.dir == leases.dir)
    val wall = System.currentTimeMillis()
    val leased = leases.oldestLeased(wall).getOrElse(Long.MaxValue)
    leases.removeLapsed(wall, SnapshotExpiration.LapsedLeaseGraceMillis)
    val end = math.min(policy.firstRetained(earliest, latest, now, id => snapshots.read(id).map(_.timeMillis)), leased)
    expireUntil(earliest, math.min(end, consumedFrom(now)))
  }

  /** The oldest snapshot a consumer still needs, after removing the idle ones; none with
   *  `consumer.changelog-only` on a table that keeps changelogs longer (consumers then hold back only
   *  changelog expiration, as in Paimon). */
  private def consumedFrom(now: Long): Long = {
    val consumers = ConsumerManager.of(table)
    CoreOptions.ConsumerExpirationTime.get(table.options).foreach(t => consumers.expire(now - t))
    if (keepChangelogs && CoreOptions.ConsumerChangelogOnly.getOrDefault(table.options)) Long.MaxValue
    else consumers.minNextSnapshot().getOrElse(Long.MaxValue)
  }

  /** Expires snapshots from `earliest` until `endExclusive`; returns how many were expired. */
  def expireUntil(earliest: Long, endExclusive: Long): Int = {
    if (endExclusive <= earliest) return 0
    // snapshots a crashed run already removed are skipped
    val range = (earliest to endExclusive).flatMap(snapshots.read)
    val end = range.lastOption.filter(_.id == endExclusive).getOrElse(return 0)
    val expiring = range.filter(_.id < endExclusive)
    if (expiring.isEmpty) return 0
    val begin = expiring.head.id
    val tagged = snapshots.tags.all().map(_._2.snapshot)
    val keptTags = RetentionPolicy.tagsToKeep(tagged.map(_.id), begin, endExclusive).flatMap(id => tagged.find(_.id == id))

    // 1. data files: what the deltas of (begin, end] remove, unless a tag or another branch holds it
    val branches = OtherBranches.of(table)
    val tagFiles = keptTags.flatMap(refs.liveDataFiles).toSet ++ branches.data
    range.filter(_.id > begin).foreach { s =>
      refs.deltaEntries(s).foreach { delta =>
        val removed = FileReferences.removedBy(delta).flatMap(refs.dataPaths) ++
          FileReferences.extrasDroppedBy(delta).flatMap { case (e, names) => refs.extraPaths(e, names) }
        removed.filterNot(tagFiles.contains).foreach(table.fileIO.deleteQuietly)
      }
    }
    if (!keepChangelogs)
      expiring.foreach(s => refs.changelogFiles(s).filterNot(branches.data.contains).foreach(table.fileIO.deleteQuietly))

    // 2. metadata that the first kept snapshot, the tags and the other branches do not refer to
    val keptMetadata = (end +: keptTags).flatMap(refs.metadataFiles(_, strict = true)).toSet ++ branches.metadata
    expiring.foreach(s =>
      (refs.metadataFiles(s, strict = false, withChangelog = !keepChangelogs) -- keptMetadata).foreach(
        table.fileIO.deleteQuietly))

    // 3. snapshot files last (each first kept as a changelog, when changelogs outlive snapshots)
    val changelogs = table.changelogManager
    expiring.foreach { s =>
      if (keepChangelogs) changelogs.commit(Changelog(s))
      snapshots.delete(s.id)
    }
    snapshots.commitEarliestHint(endExclusive)
    expiring.size
  }
}

object SnapshotExpiration {
  private val log = LoggerFactory.getLogger(getClass)

  /** How long after it lapsed a lease's file stays (for people looking into a stuck reader). */
  val LapsedLeaseGraceMillis: Long = 60L * 60 * 1000

  /** The maintenance a commit runs once it landed, with the table's options, unless `write-only` is
   *  set (as Paimon's writers do): partition expiration, automatic tags, snapshot expiration, changelog
 *  expiration (when changelogs outlive snapshots), tags past
   *  their retention. The commit stands whatever happens here: a failure is logged and the next commit
   *  tries again. */
  def afterCommit(table: FileStoreTable): Unit = {
    if (CoreOptions.WriteOnly.getOrDefault(table.options)) return
    try {
      PartitionExpiration.afterCommit(table)
      AutomaticTags.afterCommit(table)
      new SnapshotExpiration(table).expire(RetentionPolicy.of(table.options))
      if (ChangelogExpiration.decoupled(table.options))
        new ChangelogExpiration(table).expire(RetentionPolicy.ofChangelog(table.options))
      Tags.expireRetained(table, java.time.LocalDateTime.now())
    } catch {
      case NonFatal(e) => log.warn(s"Snapshot expiration of table ${table.name} failed; the commit stands", e)
    }
  }

}
