package lamina.table.lifecycle

import lamina.errors.BadInputException
import lamina.table.options.CoreOptions

/** How many snapshots and for how long a table keeps them: `snapshot.num-retained.min`,
 *  `snapshot.num-retained.max`, `snapshot.time-retained` and `snapshot.expire.limit`.
 *  Invariant: 1 <= retainMin <= retainMax, maxDeletes >= 1, timeRetainedMillis >= 0. */
final case class RetentionPolicy(retainMin: Int, retainMax: Int, timeRetainedMillis: Long, maxDeletes: Int) {
  if (retainMin < 1) throw new BadInputException(s"retain_min must be at least 1, got $retainMin")
  if (retainMax < retainMin)
    throw new BadInputException(s"retain_max ($retainMax) must not be less than retain_min ($retainMin)")
  if (maxDeletes < 1) throw new BadInputException(s"max_deletes must be at least 1, got $maxDeletes")
  if (timeRetainedMillis < 0) throw new BadInputException(s"older_than must not lie in the future")

  /** The first snapshot id to keep, given the table's `earliest` and `latest` snapshot ids, the time
   *  `now`, and `commitTime` of a snapshot id (None once it is gone). Snapshots below the result expire.
   *  Pure, as Paimon decides it: keep at most `retainMax` and at least `retainMin` snapshots; expire
   *  at most `maxDeletes` in one go; and expire a snapshot only when the snapshot after it was committed
   *  `timeRetainedMillis` before `now` (a snapshot stays readable for that long after it stopped
   *  being the latest, so a query that started on it finds its files). */
  def firstRetained(earliest: Long, latest: Long, now: Long, commitTime: Long => Option[Long]): Long = {
    val olderThan = now - timeRetainedMillis
    val min = math.max(latest - retainMax + 1, earliest)
    val maxExclusive = math.min(latest - retainMin + 1, earliest + maxDeletes)
    var id = min
    while (id < maxExclusive) {
      if (commitTime(id + 1).exists(olderThan <= _)) return math.max(id, earliest)
      id += 1
    }
    math.max(maxExclusive, earliest)
  }
}

object RetentionPolicy {

  /** The table's policy (options resolved as for a write), with a procedure's arguments on top. */
  def of(options: Map[String, String], retainMax: Option[Int] = None, retainMin: Option[Int] = None,
      timeRetainedMillis: Option[Long] = None, maxDeletes: Option[Int] = None): RetentionPolicy =
    RetentionPolicy(
      retainMin = retainMin.getOrElse(CoreOptions.SnapshotNumRetainedMin.getOrDefault(options)),
      retainMax = retainMax.getOrElse(CoreOptions.SnapshotNumRetainedMax.getOrDefault(options)),
      timeRetainedMillis = timeRetainedMillis.getOrElse(CoreOptions.SnapshotTimeRetained.getOrDefault(options)),
      maxDeletes = maxDeletes.getOrElse(CoreOptions.SnapshotExpireLimit.getOrDefault(options)))

  /** The table's changelog policy: each `changelog.*` option, defaulting to its `snapshot.*`
   *  counterpart (`snapshot.expire.limit` bounds both), with a procedure's arguments on top. */
  def ofChangelog(options: Map[String, String], retainMax: Option[Int] = None, retainMin: Option[Int] = None,
      timeRetainedMillis: Option[Long] = None, maxDeletes: Option[Int] = None): RetentionPolicy = {
    import CoreOptions._
    of(options,
      retainMax.orElse(ChangelogNumRetainedMax.get(options)).orElse(Some(SnapshotNumRetainedMax.getOrDefault(options))),
      retainMin.orElse(ChangelogNumRetainedMin.get(options)).orElse(Some(SnapshotNumRetainedMin.getOrDefault(options))),
      timeRetainedMillis.orElse(ChangelogTimeRetained.get(options)), maxDeletes)
  }

  /** The tags whose files may include files of snapshots `beginInclusive` until `endExclusive`: those
   *  in the range and the last one before it (a file live at an earlier tag and at a snapshot of the
   *  range is live at that last one too, as a file is live over one contiguous span of snapshots).
   *  `tagged` holds the tagged snapshot ids. Pure. */
  def tagsToKeep(tagged: Seq[Long], beginInclusive: Long, endExclusive: Long): Seq[Long] = {
    val sorted = tagged.distinct.sorted
    val before = sorted.filter(_ <= beginInclusive).lastOption
    (before.toSeq ++ sorted.filter(t => t > beginInclusive && t < endExclusive)).distinct
  }
}
