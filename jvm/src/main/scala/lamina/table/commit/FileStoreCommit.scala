package lamina.table.commit

import scala.collection.immutable.ArraySeq
import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.{CommitConflictException, CommitStateUnknownException}
import lamina.table.FileStoreTable
import lamina.table.bucket.HashIndexChange
import lamina.table.manifest.{DataFileMeta, ManifestEntry, ManifestFileMeta}
import lamina.table.options.CoreOptions
import lamina.table.scan.{BucketCounts, DataSplit}
import lamina.table.snapshot.Snapshot

/** Two-phase optimistic commit of one table. Phase one (in the writers) wrote data files; here the
 *  driver writes manifests and a manifest list, then claims the next snapshot id by creating its
 *  file atomically. Losing that race re-reads the latest snapshot, re-checks conflicts and retries.
 *  A DELETE of a file that is no longer live (another commit removed it) fails with a conflict. */
final class FileStoreCommit(table: FileStoreTable, commitUser: String, properties: Map[String, String] = Map.empty) {
  import FileStoreCommit.Attempt

  table.requireSafeCommits()

  private val store = table.manifestStore
  private val snapshots = table.snapshotManager

  /** Appends new files. Returns the committed snapshot id, or None when there was nothing to commit.
   *  `keyIndexBase`: the snapshot a cross-partition upsert's key index was built from ([[KeyIndexConflict]]). */
  def append(messages: Seq[CommitMessage], identifier: Long = System.currentTimeMillis(),
      keyIndexBase: Option[Option[Long]] = None): Option[Long] = {
    val entries = adds(messages)
    val compact = compactions(messages)
    val indexChanges = messages.flatMap(m => m.indexChange.map(c => (m.partition, m.bucket, c)))
    def changelogOf(files: CommitMessage => Seq[DataFileMeta]) = messages.flatMap(m =>
      files(m).map(f => ManifestEntry(ManifestEntry.Add, m.partition, m.bucket, m.totalBuckets, f)))
    val hashes = hashChanges(messages)
    var last: Option[Long] = None
    if (entries.nonEmpty || hashes.nonEmpty)
      last = tryAttempts(
        latest => {
          keyIndexBase.foreach(KeyIndexConflict.check(table, _, latest))
          Attempt(entries, Snapshot.Kind.Append, hashChanges = hashes)
        }, identifier,
        changelog = changelogOf(_.changelogFiles))
    if (compact.nonEmpty || indexChanges.nonEmpty)
      last = tryCommit(_ => compact, Snapshot.Kind.Compact, identifier, indexChanges = indexChanges,
        changelog = changelogOf(_.compactChangelog))
    last
  }

  /** Replaces the live files of every partition `partitionFilter` accepts (all of them when it is
   *  None) with the new files, in one OVERWRITE snapshot. */
  def overwrite(messages: Seq[CommitMessage], partitionFilter: Option[InternalRow => Boolean],
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val added = adds(messages)
    val hashes = hashChanges(messages)
    tryAttempts(
      latest => {
        val live = latest.map(liveEntries).getOrElse(Seq.empty)
        val (doomed, kept) = live.partition(e => partitionFilter.forall(f => f(store.decodePartition(e.partition))))
        requireBucketCounts(added, countsOf(kept))
        Attempt(doomed.map(_.copy(kind = ManifestEntry.Delete)) ++ added, Snapshot.Kind.Overwrite,
          hashChanges = hashes, overwrite = true)
      }, identifier, allowEmpty = true)
  }

  /** Replaces the live files of exactly the given serialized partitions (dynamic overwrite). */
  def overwritePartitions(messages: Seq[CommitMessage], partitions: Set[java.nio.ByteBuffer],
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val added = adds(messages)
    val hashes = hashChanges(messages)
    tryAttempts(
      latest => {
        val live = latest.map(liveEntries).getOrElse(Seq.empty)
        val (doomed, kept) = live.partition(e => partitions.contains(java.nio.ByteBuffer.wrap(e.partition)))
        requireBucketCounts(added, countsOf(kept))
        Attempt(doomed.map(_.copy(kind = ManifestEntry.Delete)) ++ added, Snapshot.Kind.Overwrite, hashChanges = hashes,
          overwrite = true)
      }, identifier, allowEmpty = true)
  }

  /** Copy-on-write (DELETE, UPDATE, MERGE of an append table): removes exactly the files the
   *  operation `read` and adds the files it wrote, in one snapshot: OVERWRITE when it removes files
   *  (the kind Paimon commits its append-table DELETE with), APPEND when it only adds. A file read
   *  that a concurrent commit removed fails the commit with a conflict (the rows it would write back
   *  may be stale), on every retry too; files that others added meanwhile stay, untouched.
   *  With `onlyRemovesRows` (a DELETE), keeping as many rows as were read means nothing was deleted:
   *  nothing is committed (None) and the written files are the caller's to discard. */
  def replace(read: Seq[DataSplit], messages: Seq[CommitMessage], onlyRemovesRows: Boolean,
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val removed = removes(read)
    val added = adds(messages)
    val unchanged = onlyRemovesRows && added.map(_.file.rowCount).sum == removed.map(_.file.rowCount).sum
    if (unchanged) return None
    tryCommit(_ => removed ++ added, if (removed.isEmpty) Snapshot.Kind.Append else Snapshot.Kind.Overwrite, identifier)
  }

  /** A sort compaction of an append table: removes exactly the files `read` and adds the new files
   *  (the same rows, reordered, without those their deletion vectors delete), in one snapshot of `kind`;
   *  a file read that a concurrent commit removed, or whose rows it marked deleted since, fails the
   *  commit with a conflict, as for [[compactAppend]]. */
  def rewrite(read: Seq[DataSplit], messages: Seq[CommitMessage], kind: String,
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val since = new VectorsSinceRead(table, read)
    val inputs = read.flatMap(_.files.map(_.fileName))
    val entries = removes(read) ++ adds(messages)
    tryAttempts(latest => {
        latest.foreach(since.check(_, inputs, "a sort compaction rewrote"))
        Attempt(entries, kind)
      }, identifier)
  }

  /** A rescale (`CALL sys.rescale`): removes exactly the files `read`, every live file of their
 *  partitions, and adds the same rows in the new bucket count, in one COMPACT snapshot (the rows are
 *  unchanged, so streaming readers skip it, as they skip compactions). A file read that a concurrent
 *  commit removed, or whose rows it marked deleted since, is a conflict, and so is any other file in
 *  those partitions now (a write committed meanwhile, whose rows the new files lack). A postpone
 *  assignment ([[lamina.table.bucket.PostponeAssignment]]) commits the same way, `what` naming it, with
 *  `kept`, the files of its partitions that it leaves in place, and `mayArrive`, the files that may be
 *  added meanwhile (new files in bucket-postpone, which the next assignment takes). */
  def rescale(read: Seq[DataSplit], messages: Seq[CommitMessage], identifier: Long = System.currentTimeMillis(),
      what: String = "rescale", kept: Set[String] = Set.empty,
      mayArrive: ManifestEntry => Boolean = _ => false): Option[Long] = {
    val since = new VectorsSinceRead(table, read)
    val inputs = read.flatMap(_.files.map(_.fileName))
    val readNames = inputs.toSet ++ kept
    val partitions = (read.map(_.partition) ++ messages.map(_.partition)).map(ArraySeq.unsafeWrapArray(_)).toSet
    val entries = removes(read) ++ adds(messages)
    tryAttempts(latest => {
        latest.foreach { s =>
          val (live, _) = since.check(s, inputs, s"a $what rewrote")
          live.values.find(e =>
            partitions(ArraySeq.unsafeWrapArray(e.partition)) && !readNames(e.file.fileName) && !mayArrive(e))
            .foreach { e =>
              throw new CommitConflictException(s"${what.capitalize} of table ${table.name} conflicts with a concurrent " +
                s"commit: file ${e.file.fileName} (bucket ${e.bucket}) was added to a partition being " +
                s"${if (what == "rescale") "rescaled" else "rewritten"}. Nothing was committed; run the $what again.")
            }
        }
        Attempt(entries, Snapshot.Kind.Compact, rescale = true)
      }, identifier)
  }

  /** Records the statistics file `statistics` (written for the latest snapshot) in an ANALYZE snapshot
   *  with the same files. */
  def analyze(statistics: String, identifier: Long = System.currentTimeMillis()): Option[Long] =
    tryCommit(_ => Seq.empty, Snapshot.Kind.Analyze, identifier, allowEmpty = true, statistics = Some(statistics))

  /** Folds every manifest of the latest snapshot into new ones holding only its live files, in a
   *  COMPACT snapshot with the same files and an empty delta (Paimon's `compact_manifest`); None when
   *  there is nothing to fold (no snapshot, or one manifest without deletes). */
  def compactManifests(identifier: Long = System.currentTimeMillis()): Option[Long] = {
    def folded(s: Snapshot): Boolean = {
      val manifests = store.readList(s.baseManifestList) ++ store.readList(s.deltaManifestList)
      manifests.size <= 1 && manifests.forall(_.numDeletedFiles == 0)
    }
    if (snapshots.latest().forall(folded)) return None
    tryCommit(_ => Seq.empty, Snapshot.Kind.Compact, identifier, allowEmpty = true, mergeAllManifests = true)
  }

  /** New file indexes of live data files (`CALL sys.rewrite_file_index`): each entry of `rewritten`
   *  replaced by the same file with its new index, in one COMPACT snapshot (the rows are unchanged).
   *  An entry that is no longer live as read (a concurrent commit removed the file or rewrote its
   *  index) is a conflict ([[checkDeletesAreLive]]), on every retry too. */
  def rewriteFileIndexes(rewritten: Seq[(ManifestEntry, DataFileMeta)],
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val entries = rewritten.map(_._1.copy(kind = ManifestEntry.Delete)) ++
      rewritten.map { case (e, f) => e.copy(kind = ManifestEntry.Add, file = f) }
    tryCommit(_ => entries, Snapshot.Kind.Compact, identifier)
  }

  private def removes(read: Seq[DataSplit]): Seq[ManifestEntry] =
    read.flatMap(s => s.files.map(f => ManifestEntry(ManifestEntry.Delete, s.partition, s.bucket, s.totalBuckets, f)))

  /** A DELETE, UPDATE or MERGE of an append table with deletion vectors: marks the `deleted` rows
   *  of the files the operation `read` in deletion vectors and adds the files it wrote, in one
   *  snapshot ([[AppendDeletionVectorsUpdate]], planned again on each retry on top of the latest
   *  snapshot), an OVERWRITE as Paimon commits any change of deletion vectors (so that streaming
   *  readers of APPEND deltas never see an update's new rows without its deletes). A marked file that a
   *  concurrent commit removed or marked is a conflict. None when nothing was deleted or written. */
  def markDeleted(read: Seq[DataSplit], deleted: DeletedPositions, messages: Seq[CommitMessage],
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val added = adds(messages)
    if (deleted.isEmpty) return if (added.isEmpty) None else tryCommit(_ => added, Snapshot.Kind.Append, identifier)
    val update = new AppendDeletionVectorsUpdate(table, read, deleted)
    tryAttempts(
      latest => {
        val c = update.at(latest)
        Attempt(c.removed ++ added, Snapshot.Kind.Overwrite, c.indexChanges, c.written)
      }, identifier)
  }

  /** An append table's compaction: removes the inputs (their vectors with them) and adds the outputs
   *  in one COMPACT snapshot. An input that a concurrent commit removed, or whose rows it marked
   *  deleted since the compaction `read` it, is a conflict: the outputs would bring those rows back. */
  def compactAppend(messages: Seq[CommitMessage], read: Seq[DataSplit],
      identifier: Long = System.currentTimeMillis()): Option[Long] = {
    val since = new VectorsSinceRead(table, read)
    val inputs = messages.flatMap(_.compactBefore.map(_.fileName))
    val entries = compactions(messages)
    tryAttempts(latest => {
        latest.foreach(since.check(_, inputs, "a compaction rewrote"))
        Attempt(entries, Snapshot.Kind.Compact)
      }, identifier)
  }

  private def compactions(messages: Seq[CommitMessage]): Seq[ManifestEntry] =
    messages.flatMap(m =>
      m.compactBefore.map(f => ManifestEntry(ManifestEntry.Delete, m.partition, m.bucket, m.totalBuckets, f)) ++
        m.compactAfter.map(f => ManifestEntry(ManifestEntry.Add, m.partition, m.bucket, m.totalBuckets, f)))

  /** The new hash indexes of dynamic buckets, one per (partition, bucket): two would mean two tasks
   *  assigned keys to one bucket, and one of them could have put a key in a second bucket. */
  private def hashChanges(messages: Seq[CommitMessage]): Seq[(Array[Byte], Int, HashIndexChange)] = {
    val changes = messages.flatMap(m => m.hashIndex.map(c => (m.partition, m.bucket, c)))
    changes.groupBy { case (p, b, _) => (java.nio.ByteBuffer.wrap(p), b) }.find(_._2.size > 1).foreach { case ((_, b), _) =>
      throw new IllegalStateException(s"Write into table ${table.name}: two tasks gave new keys to dynamic bucket $b " +
        "of one partition (the rows were not clustered by partition and key hash); nothing was committed")
    }
    changes
  }

  private def adds(messages: Seq[CommitMessage]): Seq[ManifestEntry] =
    messages.flatMap(m => m.newFiles.map(f => ManifestEntry(ManifestEntry.Add, m.partition, m.bucket, m.totalBuckets, f)))

  def liveEntries(s: Snapshot): Seq[ManifestEntry] =
    table.snapshotEntries.live(s)

  /** `changelog`: the changelog files of the commit (ADDs), listed in its changelog manifest list;
   *  `statistics`: the statistics file of an ANALYZE commit. */
  private def tryCommit(changes: Option[Snapshot] => Seq[ManifestEntry], kind: String, identifier: Long,
      allowEmpty: Boolean = false, indexChanges: Seq[(Array[Byte], Int, IndexChange)] = Seq.empty,
      changelog: Seq[ManifestEntry] = Seq.empty, statistics: Option[String] = None,
      mergeAllManifests: Boolean = false): Option[Long] =
    tryAttempts(latest => Attempt(changes(latest), kind, indexChanges), identifier, allowEmpty, changelog, statistics,
      mergeAllManifests)

  /** `mergeAllManifests`: the previous snapshot's manifests are folded whatever their number. */
  private def tryAttempts(plan: Option[Snapshot] => Attempt, identifier: Long, allowEmpty: Boolean = false,
      changelog: Seq[ManifestEntry] = Seq.empty, statistics: Option[String] = None,
      mergeAllManifests: Boolean = false): Option[Long] = {
    val maxRetries = CoreOptions.CommitMaxRetries.getOrDefault(table.options)
    var attempt = 0
    while (true) {
      val latest = snapshots.latest()
      // a file of the base went missing (also as the cause of a CorruptFileException) while this attempt
      // read it, and the base is no longer the latest: others committed on top of it and an expiration
      // took it meanwhile, so the attempt is retried on the new latest
      def baseMoved(e: Throwable): Boolean =
        Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(8).exists(_.isInstanceOf[java.io.FileNotFoundException]) &&
          snapshots.latestId() != latest.map(_.id)
      val Attempt(entries, kind, indexChanges, attemptFiles, retry, hashes, overwrite, rescale) =
        try plan(latest)
        catch { case e: Throwable if baseMoved(e) => Attempt(Seq.empty, "", retry = true) }
      val index = new IndexManifestUpdate(table)
      index.writtenIndexFiles ++= attemptFiles
      if (!retry && entries.isEmpty && indexChanges.isEmpty && hashes.isEmpty && !allowEmpty) return None
      if (!retry && entries.isEmpty && latest.isEmpty) return None
      val written = ArrayBuffer.empty[String]
      val newSnapshot =
        if (retry) None
        else
          try Some {
              checkDeletesAreLive(latest, entries)
              if (!overwrite && !rescale && latest.isDefined && table.hasFixedBucketCounts)
                requireBucketCounts(entries, BucketCounts.counts(table))
              val (indexManifest, newIndexManifest) = index(latest, entries, indexChanges, hashes, overwrite)
              if (newIndexManifest) written ++= indexManifest
              val deltaMetas = store.writeManifests(entries, table.schema.id)
              written ++= deltaMetas.map(_.fileName)
              val previous: Seq[ManifestFileMeta] = latest.toSeq.flatMap(s =>
                store.readList(s.baseManifestList) ++ store.readList(s.deltaManifestList))
              val minCount = if (mergeAllManifests) 1 else CoreOptions.ManifestMergeMinCount.getOrDefault(table.options)
              val base = new ManifestCompactor(store, table.schema.id, minCount).maybeMerge(previous, written)
              val uuid = java.util.UUID.randomUUID().toString
              val baseName = s"manifest-list-$uuid-0"
              val deltaName = s"manifest-list-$uuid-1"
              val baseSize = store.writeList(baseName, base); written += baseName
              val deltaSize = store.writeList(deltaName, deltaMetas); written += deltaName
              val changelogList = if (changelog.isEmpty) None
              else {
                val metas = store.writeManifests(changelog, table.schema.id)
                written ++= metas.map(_.fileName)
                val name = s"manifest-list-$uuid-2"
                val size = store.writeList(name, metas); written += name
                Some(name -> size)
              }
              val delta = entries.map(e => if (e.isAdd) e.file.rowCount else -e.file.rowCount).sum
              Snapshot(
                id = latest.map(_.id + 1).getOrElse(1L),
                schemaId = table.schema.id,
                baseManifestList = baseName,
                baseManifestListSize = Some(baseSize),
                deltaManifestList = deltaName,
                deltaManifestListSize = Some(deltaSize),
                changelogManifestList = changelogList.map(_._1),
                changelogManifestListSize = changelogList.map(_._2),
                indexManifest = indexManifest,
                commitUser = commitUser,
                commitIdentifier = identifier,
                commitKind = kind,
                timeMillis = System.currentTimeMillis(),
                // unknown stays unknown: a total is only ever the previous one plus this commit's rows
                totalRecordCount = latest.fold(Option(0L))(_.totalRecordCount).map(_ + delta),
                deltaRecordCount = delta,
                changelogRecordCount = Some(changelog.map(_.file.rowCount).sum),
                watermark = latest.flatMap(_.watermark),
                properties = properties,
                // as in Paimon, a snapshot carries the latest statistics on until the next ANALYZE
                statistics = statistics.orElse(latest.flatMap(_.statistics)))
            }
          catch {
            case e: Throwable =>
              written.foreach(store.deleteQuietly)
              index.writtenIndexFiles.foreach(table.fileIO.deleteQuietly)
              if (baseMoved(e)) None else throw e
          }
      var offered = false
      val committed = newSnapshot.exists { newSnapshot =>
        try table.commitLock.runWithLock(table.baseName) {
            // Creating snapshot N only proves that no file snapshot-N exists now, not that none did: if
            // others committed N and later ones meanwhile and an expiration deleted N-1 and N (it deletes
            // in ascending order, never the latest), N would come back built on a stale base, a snapshot
            // no reader takes for the latest, and this commit's rows would be lost. So the base must
            // still be there and N free right before the create: otherwise another writer committed,
            // and the attempt is retried on the new latest.
            val free = (newSnapshot.id == 1 || snapshots.exists(newSnapshot.id - 1)) && !snapshots.exists(newSnapshot.id)
            offered = true
            try free && snapshots.tryCommit(newSnapshot)
            catch {
              case e: java.io.IOException =>
                throw new CommitStateUnknownException(
                  s"Commit of snapshot ${newSnapshot.id} to table ${table.name} may or may not have landed: " +
                    s"${e.getMessage}. Check before writing again: it landed if ${table.name}$$snapshots lists snapshot " +
                    s"${newSnapshot.id} with commit user ${newSnapshot.commitUser} and identifier ${newSnapshot.commitIdentifier}",
                  e)
            }
          }
        catch {
          case e: Throwable if !offered => // the lock was not had: the snapshot's files are garbage
            written.foreach(store.deleteQuietly)
            index.writtenIndexFiles.foreach(table.fileIO.deleteQuietly)
            throw e
        }
      }
      if (committed) return newSnapshot.map(_.id)
      written.foreach(store.deleteQuietly)
      index.writtenIndexFiles.foreach(table.fileIO.deleteQuietly)
      attempt += 1
      if (attempt > maxRetries)
        throw new CommitConflictException(
          s"Commit to table ${table.name} failed after $attempt attempts: other writers kept taking snapshot ids")
    }
    None
  }

  /** The bucket count of each partition of `entries` (by serialized partition). */
  private def countsOf(entries: Seq[ManifestEntry]): Map[ArraySeq[Byte], Int] =
    entries.iterator.map(e => ArraySeq.unsafeWrapArray(e.partition) -> e.totalBuckets).toMap

  /** A fixed-bucket partition holds files of one bucket count: a file added for another count than
   *  the partition's (`counts`) means a rescale of the partition committed after the write read its
   *  count, and the rows would be in the wrong buckets. */
  private def requireBucketCounts(entries: Seq[ManifestEntry], counts: Map[ArraySeq[Byte], Int]): Unit =
    if (table.hasFixedBucketCounts)
      entries.iterator.filter(e => e.isAdd && e.totalBuckets > 0).find(e =>
        counts.get(ArraySeq.unsafeWrapArray(e.partition)).exists(_ != e.totalBuckets))
        .foreach { e =>
          val partition = if (table.schema.partitionKeys.isEmpty) "the table"
          else "partition " + table.paths.partitionPath(store.decodePartition(e.partition)).replace('/', ',')
          throw new CommitConflictException(
            s"Commit to table ${table.name} conflicts with a concurrent commit: $partition now has " +
              s"${counts(ArraySeq.unsafeWrapArray(e.partition))} buckets (rescaled), and this write put its rows in " +
              s"${e.totalBuckets}. Nothing was committed; retry the operation.")
        }

  /** Every DELETE must name a file that is live at `latest`; otherwise a concurrent commit already
   *  removed it and committing would resurrect or double-delete data. */
  private def checkDeletesAreLive(latest: Option[Snapshot], entries: Seq[ManifestEntry]): Unit = {
    val deletes = entries.filterNot(_.isAdd)
    if (deletes.isEmpty) return
    val live = latest.map(liveEntries).getOrElse(Seq.empty).map(_.identifier).toSet
    deletes.find(d => !live.contains(d.identifier)).foreach { d =>
      throw new CommitConflictException(
        s"Commit to table ${table.name} conflicts with a concurrent commit: file ${d.file.fileName} " +
          s"(bucket ${d.bucket}) was already deleted or replaced. Retry the operation.")
    }
  }
}

object FileStoreCommit {

  /** A fresh commit user: the name one writer's commits carry in their snapshots (`commitUser`), a
   *  random UUID as Paimon's writers take. A streaming sink names its commits by its query's id instead,
   *  so that a restarted query finds the batches it committed. */
  def newUser(): String = java.util.UUID.randomUUID().toString

  /** One attempt's changes on top of the latest snapshot: `writtenIndexFiles` were written for it
   *  alone, and are removed when it does not land; `hashChanges`, the new hash indexes of dynamic
   *  buckets, of an `overwrite` (which replaces its partitions' indexes) or not; a `rescale` replaces
 *  every file of its partitions (the bucket counts of files it adds are not those of the files there). */
  private[commit] final case class Attempt(entries: Seq[ManifestEntry], kind: String,
      indexChanges: Seq[(Array[Byte], Int, IndexChange)] = Seq.empty, writtenIndexFiles: Seq[Path] = Seq.empty,
      retry: Boolean = false, hashChanges: Seq[(Array[Byte], Int, HashIndexChange)] = Seq.empty,
      overwrite: Boolean = false, rescale: Boolean = false)
}
