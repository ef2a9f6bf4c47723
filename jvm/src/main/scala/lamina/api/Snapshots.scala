package lamina.api

import java.time.{LocalDate, LocalDateTime, ZoneId}
import java.time.format.DateTimeParseException

import lamina.errors.BadInputException
import lamina.table.catalog.Metastore
import lamina.table.commit.{CommitOperation, FileStoreCommit}
import lamina.table.lifecycle.{ChangelogExpiration, OrphanFiles, PurgeFiles, Rollback, RetentionPolicy, SnapshotExpiration}

/** Snapshot and changelog expiration, purging and rollback for `CALL sys.expire_snapshots`, `sys.expire_changelogs`,
 *  `sys.purge_files`, `sys.rollback` and `sys.rollback_to_timestamp`: plain values in (a `db.t` name, numbers, text), plain values out. */
object Snapshots {

  /** Expires the table's snapshots under its own retention options, each given argument replacing its
   *  option (`olderThan`, a timestamp, replaces `snapshot.time-retained`: snapshots whose successor was
   *  committed before it may go; a time in the future counts as now). Returns how many snapshots expired. */
  def expire(warehouse: Metastore, table: String, retainMax: Option[Int], retainMin: Option[Int],
      olderThan: Option[String], maxDeletes: Option[Int], now: Long = System.currentTimeMillis(),
      zone: ZoneId = ZoneId.systemDefault()): Int = {
    val t = warehouse.loadTable(table)
    val policy = RetentionPolicy.of(t.options, retainMax, retainMin, retainedFor(olderThan, now, zone), maxDeletes)
    new SnapshotExpiration(t).expire(policy, now)
  }

  /** Empties `table` for good ([[PurgeFiles]]): its branches, tags, consumers, rows, every snapshot but
   *  an empty latest one, and every file no snapshot refers to. */
  def purgeFiles(warehouse: Metastore, table: String): Unit = PurgeFiles.purge(warehouse.loadTable(table))

  /** Expires the changelogs kept longer than snapshots under the table's `changelog.*` options, each
   *  given argument replacing its option (`olderThan`, a timestamp, replaces `changelog.time-retained`:
   *  changelogs committed before it may go); `deleteAll` removes every kept changelog. Returns how many
   *  changelogs expired. */
  def expireChangelogs(warehouse: Metastore, table: String, retainMax: Option[Int], retainMin: Option[Int],
      olderThan: Option[String], maxDeletes: Option[Int], deleteAll: Boolean, now: Long = System.currentTimeMillis(),
      zone: ZoneId = ZoneId.systemDefault()): Int = {
    val t = warehouse.loadTable(table)
    val expiration = new ChangelogExpiration(t)
    if (deleteAll) expiration.expireAll()
    else
      expiration.expire(
        RetentionPolicy.ofChangelog(t.options, retainMax, retainMin, retainedFor(olderThan, now, zone), maxDeletes), now)
  }

  /** `older_than` as a time retained before `now` (a time in the future counts as now). */
  private def retainedFor(olderThan: Option[String], now: Long, zone: ZoneId): Option[Long] =
    olderThan.map(_.trim).filter(_.nonEmpty).map(parseTimestamp(_, "older_than", zone)).map(t => math.max(0L, now - t))

  /** Removes the files no snapshot or tag refers to, last modified before `olderThan` (a timestamp;
   *  default: a day ago); with `dryRun` only lists them. Returns (how many, their total bytes). */
  def removeOrphanFiles(warehouse: Metastore, table: String, olderThan: Option[String], dryRun: Boolean,
      now: Long = System.currentTimeMillis(), zone: ZoneId = ZoneId.systemDefault()): (Long, Long) = {
    val t = warehouse.loadTable(table)
    val before = olderThan.map(_.trim).filter(_.nonEmpty).map(parseTimestamp(_, "older_than", zone))
      .getOrElse(now - OrphanFiles.DefaultMarginMillis)
    val found = new OrphanFiles(t).remove(before, dryRun)
    (found.size.toLong, found.map(_.getLen).sum)
  }

  /** Folds the manifests of the latest snapshot into as few as hold its live files, in a COMPACT
   *  commit (then expiration runs, as after any commit); the snapshot id committed, None when there was
   *  nothing to fold. */
  def compactManifests(warehouse: Metastore, table: String): Option[Long] = {
    val t = warehouse.loadTable(table)
    val id = new FileStoreCommit(t, FileStoreCommit.newUser(), CommitOperation.CompactManifests.properties).compactManifests()
    if (id.isDefined) SnapshotExpiration.afterCommit(t)
    id
  }

  /** Rolls back to `version` (a snapshot id or a tag name); returns (previous latest id, current id). */
  def rollback(warehouse: Metastore, table: String, version: String): (Long, Long) =
    pair(Rollback.to(warehouse.loadTable(table), version))

  def rollbackToTimestamp(warehouse: Metastore, table: String, timestampMillis: Long): (Long, Long) =
    pair(Rollback.toTimestamp(warehouse.loadTable(table), timestampMillis))

  private def pair(r: Rollback.Result): (Long, Long) = (r.previous, r.current)

  /** `yyyy-MM-dd[ HH:mm:ss[.fff]]` (or with a `T`) in `zone` into epoch milliseconds; `argument` names
   *  the argument in the error. Spark's procedures give the session's time zone (Paimon's read the
   *  JVM's, the default here; Spark's session zone is the JVM's unless set). */
  def parseTimestamp(text: String, argument: String, zone: ZoneId = ZoneId.systemDefault()): Long = {
    val t = text.trim.replace('T', ' ')
    val local =
      try {
        if (t.length == 10) LocalDate.parse(t).atStartOfDay()
        else LocalDateTime.parse(t.replace(' ', 'T'))
      } catch {
        case e: DateTimeParseException =>
          throw new BadInputException(
            s"Invalid $argument '$text': expected a timestamp such as '2024-05-01 12:00:00' or '2024-05-01'", e)
      }
    local.atZone(zone).toInstant.toEpochMilli
  }
}
