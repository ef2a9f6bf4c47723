package lamina.table.lifecycle

import org.slf4j.LoggerFactory

import lamina.errors.BadInputException
import lamina.table.FileStoreTable
import lamina.table.consumer.ConsumerManager
import lamina.table.options.{ChangelogProducer, ChangelogRetention, CoreOptions}

/** Expires the changelogs a table keeps longer than its snapshots (`changelog/changelog-<id>`, see
 *  [[lamina.table.snapshot.Changelog]]), by the `changelog.*` options, as Paimon's `ExpireChangelogImpl`
 *  does. For each expiring changelog, oldest first: the changelog data files its changelog manifests
 *  add, then its changelog manifest list and manifests, then its file; last the EARLIEST hint. Files a
 *  tag, the earliest snapshot or another branch refers to stay. A crash leaves unreferenced files
 *  behind and a rerun finishes the job. */
final class ChangelogExpiration(table: FileStoreTable) {
  private val snapshots = table.snapshotManager
  private val changelogs = table.changelogManager
  private val refs = new FileReferences(table)

  /** Expires what `policy` (a changelog policy, [[RetentionPolicy.ofChangelog]]) allows at time
   *  `now`, keeping every changelog a consumer still needs; returns how many changelogs expired. */
  def expire(policy: RetentionPolicy, now: Long = System.currentTimeMillis()): Int = {
    val latestSnapshot = snapshots.latestId().getOrElse(return 0)
    val earliest = changelogs.earliestId().getOrElse(return 0)
    val latest = changelogs.latestId().getOrElse(return 0)
    val consumed = ConsumerManager.of(table).minNextSnapshot().getOrElse(Long.MaxValue)
    val end = ChangelogExpiration.firstRetained(policy, earliest, latest, latestSnapshot, consumed, now,
      id => changelogs.read(id).map(_.timeMillis))
    expireUntil(earliest, end)
  }

  /** Expires the changelogs from `earliest` until `endExclusive` (which must still exist, as the
   *  first one kept); returns how many ids the range spans, as Paimon counts. */
  def expireUntil(earliest: Long, endExclusive: Long): Int = {
    if (endExclusive <= earliest) return 0
    if (changelogs.read(endExclusive).isEmpty) {
      ChangelogExpiration.log.warn(s"Changelog $endExclusive of table ${table.name} is missing: changelog expiration " +
        "skipped (CALL sys.expire_changelogs with delete_all removes every kept changelog)")
      return 0
    }
    remove(earliest until endExclusive)
    changelogs.commitEarliestHint(endExclusive)
    (endExclusive - earliest).toInt
  }

  /** `sys.expire_changelogs(delete_all => true)`: removes every kept changelog and both hints. Every
   *  kept changelog must lie below the earliest snapshot, as Paimon checks; returns how many went. */
  def expireAll(): Int = {
    val earliestSnapshot = snapshots.earliestId().getOrElse(return 0)
    val ids = changelogs.listIds()
    if (ids.isEmpty) return 0
    if (ids.last >= earliestSnapshot)
      throw new BadInputException(s"Table ${table.name}: kept changelog ${ids.last} is not below the earliest " +
        s"snapshot $earliestSnapshot; check the table")
    remove(ids)
    changelogs.deleteHints()
    ids.size
  }

  private def remove(ids: Seq[Long]): Unit = {
    // what the earliest snapshot, the tags and the other branches use stays
    val tagged = snapshots.tags.all().map(_._2.snapshot)
    val branches = OtherBranches.of(table)
    val kept = (snapshots.earliestId().flatMap(snapshots.read).toSeq ++ tagged)
      .flatMap(s => refs.metadataFiles(s, strict = false) ++ refs.liveDataFilesIfReadable(s).getOrElse(Set.empty))
      .toSet ++ branches.data ++ branches.metadata
    ids.foreach { id =>
      changelogs.read(id).foreach { c =>
        refs.changelogReferences(c, strict = false).filterNot(kept.contains).foreach(table.fileIO.deleteQuietly)
        changelogs.delete(id)
      }
    }
  }
}

object ChangelogExpiration {
  private val log = LoggerFactory.getLogger(getClass)

  /** Whether snapshot expiration keeps changelogs past their snapshots: the table's `changelog.*`
   *  options outlive its `snapshot.*` ones and it produces changelog files (on a table without a
   *  producer the options are refused, [[lamina.table.options.UnsupportedFeatures]]). */
  def decoupled(options: Map[String, String]): Boolean =
    ChangelogRetention.outlivesSnapshots(options) &&
      CoreOptions.ChangelogProducer.getOrDefault(options) != ChangelogProducer.None

  /** The first changelog id to keep, as Paimon's `ExpireChangelogImpl` decides: keep those of the
   *  latest `retainMax` snapshot ids, at least those of the latest `retainMin`, those from `consumedFrom`
   *  on, and always the latest kept changelog; expire at most `maxDeletes`; and stop at the first
   *  changelog committed `timeRetainedMillis` or less before `now` (`commitTime` of an id; None once
   *  gone). Pure. */
  def firstRetained(policy: RetentionPolicy, earliest: Long, latest: Long, latestSnapshot: Long, consumedFrom: Long,
      now: Long, commitTime: Long => Option[Long]): Long = {
    val olderThan = now - policy.timeRetainedMillis
    val min = math.max(latestSnapshot - policy.retainMax + 1, earliest)
    val maxExclusive = Seq(latestSnapshot - policy.retainMin + 1, consumedFrom, earliest + policy.maxDeletes, latest).min
    if (maxExclusive <= earliest) return earliest
    (min to maxExclusive).find(id => commitTime(id).exists(olderThan <= _)).getOrElse(maxExclusive)
  }
}
