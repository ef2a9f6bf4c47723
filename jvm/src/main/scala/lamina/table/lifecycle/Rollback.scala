package lamina.table.lifecycle

import lamina.errors.{BadInputException, NotFoundException}
import lamina.table.FileStoreTable
import lamina.table.snapshot.Snapshot

/** Rolls a table back to an earlier snapshot or a tag, as Paimon's `rollback` does: every later
 *  snapshot, every kept changelog ([[lamina.table.snapshot.Changelog]]) and every tag of a later snapshot is
 *  removed, with the files only they used, and the
 *  LATEST hint points at the snapshot rolled back to. Order: the later snapshot files first, newest
 *  first (at every moment the table is a prefix of its history, never a snapshot whose files are
 *  gone), then the hint and the later tags, then their files; a crash leaves unreferenced files
 *  behind, never a broken snapshot. Not safe beside concurrent writers (as in Paimon): stop them first. */
object Rollback {

  /** The ids before and after: (the latest snapshot id before, the snapshot id rolled back to). */
  final case class Result(previous: Long, current: Long)

  /** `version` is a tag name or a snapshot id (all digits), as in Paimon. */
  def to(table: FileStoreTable, version: String): Result = {
    val v = version.trim
    if (v.isEmpty) throw new BadInputException("version must name a snapshot id or a tag")
    if (v.forall(_.isDigit)) toSnapshot(table,
      v.toLongOption.getOrElse(
        throw new BadInputException(s"version '$v' is not a snapshot id")))
    else toTag(table, v)
  }

  def toSnapshot(table: FileStoreTable, id: Long): Result = {
    val snapshots = table.snapshotManager
    val target = snapshots.read(id).getOrElse(
      throw new NotFoundException(s"Cannot roll table ${table.name} back to snapshot $id: " +
        snapshotMissing(table, id)))
    run(table, target)
  }

  def toTag(table: FileStoreTable, name: String): Result = {
    val tag = table.snapshotManager.tags.getOrThrow(name)
    val snapshots = table.snapshotManager
    if (!snapshots.exists(tag.snapshot.id)) {
      // the tag's snapshot expired: it comes back from the tag, and every snapshot after it goes
      latestId(table)
      snapshots.restore(tag.snapshot)
      val result = run(table, tag.snapshot)
      snapshots.commitEarliestHint(tag.snapshot.id)
      result
    } else run(table, tag.snapshot)
  }

  /** Rolls back to the latest snapshot committed at or before `timestampMillis`. */
  def toTimestamp(table: FileStoreTable, timestampMillis: Long): Result = {
    val target = table.snapshotManager.earlierOrEqualTime(timestampMillis).getOrElse(
      throw new NotFoundException(s"Table ${table.name} has no snapshot committed at or before " +
        s"${java.time.Instant.ofEpochMilli(timestampMillis)} (timestamp $timestampMillis)"))
    run(table, target)
  }

  private def latestId(table: FileStoreTable): Long = table.snapshotManager.latestId().getOrElse(
    throw new BadInputException(s"Table ${table.name} has no snapshots to roll back"))

  private def snapshotMissing(table: FileStoreTable, id: Long): String =
    try { table.snapshotManager.snapshot(id); s"its snapshot file has expired (a tag holds it: roll back to the tag)" }
    catch { case e: NotFoundException => e.getMessage }

  private def run(table: FileStoreTable, target: Snapshot): Result = {
    val snapshots = table.snapshotManager
    val latest = latestId(table)
    val later = (target.id + 1 to latest).flatMap(snapshots.read)
    val laterTags = snapshots.tags.all().filter(_._2.snapshot.id > target.id)
    val refs = new FileReferences(table)
    // every data file a later snapshot may hold: the first one's live files, and what later deltas add
    val candidates = later.headOption.toSeq.flatMap(refs.liveDataFiles) ++
      later.drop(1).flatMap(s => refs.deltaEntries(s).getOrElse(Seq.empty).filter(_.isAdd).flatMap(refs.dataPaths)) ++
      later.flatMap(refs.changelogFiles)
    val keptTags = snapshots.tags.all().map(_._2.snapshot).filter(_.id <= target.id)
    val branches = OtherBranches.of(table)
    val keptData = refs.liveDataFiles(target) ++ branches.data
    val keptMetadata = (target +: keptTags).flatMap(refs.metadataFiles(_, strict = true)).toSet ++ branches.metadata
    val laterMetadata = (later ++ laterTags.map(_._2.snapshot)).flatMap(refs.metadataFiles(_, strict = false))

    // kept changelogs after the target (a tag's expired snapshot) go too, as in Paimon
    val changelogs = table.changelogManager
    val laterChangelogs = changelogs.all().filter(_.id > target.id)
    val changelogFiles = laterChangelogs.flatMap(refs.changelogReferences(_, strict = false))
    val keptChangelogs = changelogs.all().filter(_.id <= target.id).flatMap(refs.changelogReferences(_, strict = true))

    later.reverse.foreach(s => snapshots.delete(s.id))
    snapshots.commitLatestHint(target.id)
    laterChangelogs.reverse.foreach(c => changelogs.delete(c.id))
    if (laterChangelogs.nonEmpty) {
      val left = changelogs.listIds()
      if (left.isEmpty) changelogs.deleteHints() else changelogs.commitLatestHint(left.last)
    }
    laterTags.foreach { case (n, _) => snapshots.tags.deleteFile(n) }
    (candidates ++ changelogFiles).distinct.filterNot(f =>
      keptData.contains(f) || keptChangelogs.contains(f) ||
        keptMetadata.contains(f)).foreach(table.fileIO.deleteQuietly)
    laterMetadata.distinct.filterNot(keptMetadata.contains).foreach(table.fileIO.deleteQuietly)
    Result(latest, target.id)
  }
}
