package lamina.table.scan

import scala.collection.mutable

import lamina.errors.{BadInputException, SnapshotExpiredException}
import lamina.table.FileStoreTable
import lamina.table.options.{CoreOptions, StartupMode}

/** Plans a streaming read of one table as Paimon's streaming scans do: optionally one snapshot whole
 *  (each split of [[FileStoreScan]] a unit: a primary-key table's bucket merged, an append table's
 *  file), then what each later snapshot changed ([[ChangeScan]] from `source`: a primary-key table's
 *  files of one bucket of one snapshot as one unit, read as written; an append table's files one by
 *  one). Units are numbered in a fixed order per snapshot, so a [[StreamPosition]] names the same
 *  unit whenever it is planned again (after a restart). */
final class StreamScan(table: FileStoreTable, source: ChangeSource) {
  private val snapshots = table.snapshotManager
  private val changes = new ChangeScan(table)
  private val cache = mutable.LinkedHashMap.empty[(Long, Boolean), IndexedSeq[DataSplit]]

  /** Where a new stream starts, by `scan.mode` (with `scan.snapshot-id` or `scan.timestamp-millis`). */
  def start(options: Map[String, String]): StreamPosition = {
    val id = CoreOptions.ScanSnapshotId.get(options)
    val ts = CoreOptions.ScanTimestampMillis.get(options)
    val mode = CoreOptions.ScanMode.getOrDefault(options) match {
      case StartupMode.Default if id.isDefined => StartupMode.FromSnapshot
      case StartupMode.Default if ts.isDefined => StartupMode.FromTimestamp
      case m => m
    }
    if (!mode.supported)
      throw new BadInputException(s"Streaming read of table ${table.name}: scan.mode '${mode.name}' is not supported; " +
        s"use one of ${StartupMode.All.filter(_.supported).map(_.name).mkString(", ")}")
    def need[T](v: Option[T], key: String): T = v.getOrElse(throw new BadInputException(
        s"Streaming read of table ${table.name}: scan.mode '${mode.name}' needs '$key'"))
    val first = snapshots.earliestId().getOrElse(1L)
    mode match {
      case StartupMode.Latest => StreamPosition(snapshots.latestId().map(_ + 1).getOrElse(first), 0, full = false)
      case StartupMode.FromSnapshot => StreamPosition(need(id, CoreOptions.ScanSnapshotId.key), 0, full = false)
      case StartupMode.FromSnapshotFull => StreamPosition(need(id, CoreOptions.ScanSnapshotId.key), 0, full = true)
      case StartupMode.FromTimestamp =>
        val after = snapshots.earlierOrEqualTime(need(ts, CoreOptions.ScanTimestampMillis.key)).map(_.id + 1)
        StreamPosition(after.getOrElse(first), 0, full = false)
      case _ => snapshots.latestId().map(StreamPosition(_, 0, full = true)).getOrElse(StreamPosition(first, 0, full = false))
    }
  }

  /** The units of the position's snapshot, in their fixed order (of its kept changelog once it
   *  expired); a snapshot that expired without one fails, naming it and how to go on. */
  def units(p: StreamPosition): IndexedSeq[DataSplit] =
    cache.getOrElse((p.snapshotId, p.full), {
        val us =
          if (p.full)
            new FileStoreScan(table, snapshots.read(p.snapshotId).getOrElse(throw expired(p.snapshotId))).plan()
              .flatMap(perUnit).toIndexedSeq
          else changes.changesOf(changes.changes(p.snapshotId).getOrElse(throw expired(p.snapshotId)), source)
            .flatMap(perUnit).toIndexedSeq
        if (cache.size >= 16) cache.remove(cache.head._1)
        cache.put((p.snapshotId, p.full), us)
        us
      })

  /** A primary-key table's split is one unit (its records of a key stay in order); an append table's
   *  files are units of their own. */
  private def perUnit(s: DataSplit): Seq[DataSplit] =
    if (table.isPrimaryKeyTable) Seq(s) else s.files.map(f => s.copy(files = Seq(f)))

  /** The position after taking as many units from `from` as `limit` allows, up to snapshot `last`. */
  def advance(from: StreamPosition, limit: StreamLimit, last: Long): StreamPosition = {
    var p = from
    var files = 0
    var rows = 0L
    while (p.full || p.snapshotId <= last) {
      val us = units(p)
      if (p.index >= us.size) p = p.nextSnapshot
      else {
        val u = us(p.index)
        if (files > 0 && limit.exceeded(files + u.files.size, rows + u.rowCount)) return p
        files += u.files.size
        rows += u.rowCount
        p = p.copy(index = p.index + 1)
      }
    }
    p
  }

  /** The units from `start` (inclusive) to `end` (exclusive), each with whether it is read whole. */
  def between(start: StreamPosition, end: StreamPosition): Seq[(DataSplit, Boolean)] = {
    val out = Seq.newBuilder[(DataSplit, Boolean)]
    var p = start
    while (p < end) {
      val us = units(p)
      if (p.index >= us.size) p = p.nextSnapshot
      else { out += (us(p.index) -> p.full); p = p.copy(index = p.index + 1) }
    }
    out.result()
  }

  private def expired(id: Long): Exception = {
    val earliest = snapshots.earliestId()
    if (earliest.exists(id < _))
      new SnapshotExpiredException(id,
        s"Streaming read of table ${table.name} needs snapshot $id, which has expired (the earliest kept snapshot is " +
          s"${earliest.get}) and whose changelog was not kept: the changes in between are lost to this stream. Restart the query with a new checkpoint " +
          s"location (scan.mode 'latest-full' reads the table afresh, or 'from-snapshot' with scan.snapshot-id = " +
          s"${earliest.get} continues from the earliest kept changes), and keep snapshots longer " +
          "(snapshot.time-retained, snapshot.num-retained.min) or changelogs longer (changelog.time-retained, " +
          "changelog.num-retained.min) than a stream may stay stopped")
    else new BadInputException(s"Streaming read of table ${table.name}: snapshot $id does not exist")
  }
}
