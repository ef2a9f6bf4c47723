package lamina.table.lifecycle

import java.time.{Duration, LocalDateTime}

import lamina.errors.{BadInputException, NotFoundException}
import lamina.table.FileStoreTable
import lamina.table.snapshot.Snapshot
import lamina.table.tag.{Tag, TagManager}

/** Creating, replacing, renaming and deleting the tags of one table, as Paimon's procedures do. A
 *  deleted tag's files are removed when no snapshot or other tag uses them. */
object Tags {

  /** Tags snapshot `snapshotId` (the latest when None) as `name`, kept `timeRetained` (forever when None). */
  def create(table: FileStoreTable, name: String, snapshotId: Option[Long], timeRetained: Option[Duration],
      now: LocalDateTime = LocalDateTime.now()): Tag = {
    TagManager.checkName(name)
    val tag = Tag(target(table, snapshotId), Some(now), timeRetained)
    table.snapshotManager.tags.create(name, tag)
    tag
  }

  /** Tags the first snapshot committed at or after `timestampMillis` (or an existing tag's snapshot,
   *  when that is earlier and still after the timestamp), as Paimon's `create_tag_from_timestamp`. */
  def createFromTimestamp(table: FileStoreTable, name: String, timestampMillis: Long, timeRetained: Option[Duration],
      now: LocalDateTime = LocalDateTime.now()): Tag = {
    val snapshots = table.snapshotManager
    val fromSnapshots = snapshots.all().find(_.timeMillis >= timestampMillis)
    val fromTags = snapshots.tags.all().map(_._2.snapshot).filter(_.timeMillis >= timestampMillis).sortBy(_.timeMillis)
      .headOption
    val chosen = (fromSnapshots ++ fromTags).toSeq.sortBy(_.timeMillis).headOption.getOrElse(
      throw new NotFoundException(s"Table ${table.name} has no snapshot committed at or after " +
        s"${java.time.Instant.ofEpochMilli(timestampMillis)} (timestamp $timestampMillis)"))
    TagManager.checkName(name)
    val tag = Tag(chosen, Some(now), timeRetained)
    snapshots.tags.create(name, tag)
    tag
  }

  /** Points the existing tag `name` at snapshot `snapshotId` (the latest when None); the snapshot it
   *  held before loses the tag's protection. */
  def replace(table: FileStoreTable, name: String, snapshotId: Option[Long], timeRetained: Option[Duration],
      now: LocalDateTime = LocalDateTime.now()): Tag = {
    val tags = table.snapshotManager.tags
    val old = tags.getOrThrow(name)
    val tag = Tag(target(table, snapshotId), Some(now), timeRetained)
    tags.replace(name, tag)
    cleanAfterRemoval(table, old.snapshot)
    tag
  }

  def rename(table: FileStoreTable, from: String, to: String): Unit = {
    TagManager.checkName(to)
    table.snapshotManager.tags.rename(from, to)
  }

  /** Deletes the tags named in `names` (comma-separated, as Paimon's `delete_tag` takes them). */
  def delete(table: FileStoreTable, names: String): Unit = {
    val list = names.split(",").map(_.trim).filter(_.nonEmpty).toSeq
    if (list.isEmpty) throw new BadInputException("tag must name at least one tag")
    val tags = table.snapshotManager.tags
    val found = list.map(n => n -> tags.getOrThrow(n))
    found.foreach { case (n, t) => deleteOne(table, n, t) }
  }

  /** Deletes the tags whose `time_retained` has run out at `now`. */
  def expireRetained(table: FileStoreTable, now: LocalDateTime): Unit =
    table.snapshotManager.tags.all().foreach { case (n, t) => if (t.isExpired(now)) deleteOne(table, n, t) }

  /** `sys.expire_tags`, as Paimon's: deletes the tags whose `time_retained` has run out at `now`, and,
   *  given `olderThan`, the tags created before it (a tag without a creation time counts from its
   *  file's modification time). The names deleted. */
  def expire(table: FileStoreTable, now: LocalDateTime, olderThan: Option[LocalDateTime]): Seq[String] = {
    val tags = table.snapshotManager.tags
    tags.all().flatMap { case (name, tag) =>
      val created = tag.createTime.orElse(olderThan.map { _ =>
        val millis = table.fileIO.fs(tags.tagPath(name)).getFileStatus(tags.tagPath(name)).getModificationTime
        LocalDateTime.ofInstant(java.time.Instant.ofEpochMilli(millis), java.time.ZoneId.systemDefault())
      })
      created.filter(c => tag.isExpired(now) || olderThan.exists(_.isAfter(c))).map { _ =>
        deleteOne(table, name, tag)
        name
      }
    }
  }

  private def deleteOne(table: FileStoreTable, name: String, tag: Tag): Unit = {
    cleanAfterRemoval(table, tag.snapshot, ignoring = Some(name))
    table.snapshotManager.tags.deleteFile(name)
  }

  /** Removes the files of `gone` (a snapshot that one tag stops holding) that nothing else holds: when
   *  its snapshot file is gone (expired) and no other tag holds it, its files minus those of its
   *  neighbours (the previous tag, and the earliest snapshot or the next tag, whichever comes first;
   *  a file used by any other kept snapshot or tag is used by one of them) and minus what other
   *  branches and the kept changelogs hold. Data first, then metadata. */
  private def cleanAfterRemoval(table: FileStoreTable, gone: Snapshot, ignoring: Option[String] = None): Unit = {
    val snapshots = table.snapshotManager
    if (snapshots.exists(gone.id)) return
    val others = snapshots.tags.all().filterNot { case (n, _) => ignoring.contains(n) }.map(_._2.snapshot)
    if (others.exists(_.id == gone.id)) return
    val earliest = snapshots.earliestId().flatMap(snapshots.read)
    val previous = others.filter(_.id < gone.id).sortBy(_.id).lastOption
    val next = (others.filter(_.id > gone.id) ++ earliest).sortBy(_.id).headOption
    val neighbours = previous.toSeq ++ next
    val refs = new FileReferences(table)
    val branches = OtherBranches.of(table)
    val changelogs = refs.keptChangelogFiles(strict = true)
    val keptData = neighbours.flatMap(refs.liveDataFiles).toSet ++ branches.data ++ changelogs
    refs.liveDataFilesIfReadable(gone).foreach(files => (files -- keptData).foreach(table.fileIO.deleteQuietly))
    val keptMetadata = neighbours.flatMap(refs.metadataFiles(_, strict = true)).toSet ++ branches.metadata ++ changelogs
    (refs.metadataFiles(gone, strict = false) -- keptMetadata).foreach(table.fileIO.deleteQuietly)
  }

  private def target(table: FileStoreTable, snapshotId: Option[Long]): Snapshot = snapshotId match {
    case Some(id) => table.snapshotManager.snapshot(id)
    case None => table.snapshotManager.latest().getOrElse(
        throw new BadInputException(s"Table ${table.name} has no snapshot to tag"))
  }
}
