package lamina.table.compact

import java.io.File
import java.nio.ByteBuffer

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.CommitConflictException
import lamina.format.DataFileWriters
import lamina.lookup.cache.CacheCounters
import lamina.mergetree.{
  ChangelogMergeFunction,
  RecordExpiry,
  CompactUnit,
  CompactionChangelog,
  FileKeyOrder,
  KeyValueReaders,
  Levels,
  UniversalCompaction
}
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.commit.{CommitMessage, FileStoreCommit, UncommittedFiles}
import lamina.table.lifecycle.SnapshotExpiration
import lamina.table.manifest.{DataFileMeta, ValueStatistics}
import lamina.table.options.{CoreOptions, LookupCompactMode, TableCapabilities}
import lamina.table.scan.{DataSplit, FileStoreScan}

/** Compaction of primary-key tables: picks, per bucket, the sorted runs to merge (universal or full
 *  compaction, pure decisions in [[UniversalCompaction]]), merges them in [[CompactTasks]], and commits
 *  one COMPACT snapshot that deletes the inputs and adds the outputs. A concurrent commit that
 *  removed an input first makes this commit fail with a conflict; appends are never lost. Append
 *  tables are compacted by [[AppendCompaction]] through the same steps. */
object Compactor {

  /** Plans and runs compaction of the buckets selected by `buckets` and `partitionFilter` at the
   *  latest snapshot. Returns the COMPACT snapshot id, or None when nothing needed compaction. */
  def compactBuckets(table: FileStoreTable, buckets: Option[Set[(ByteBuffer, Int)]], full: Boolean,
      commitUser: String, tasks: CompactTasks, partitionFilter: Option[InternalRow => Boolean] = None): Option[Long] = {
    val snapshot = table.snapshotManager.latest().getOrElse(return None)
    val store = table.manifestStore
    val splits = new FileStoreScan(table, snapshot).plan().filter { s =>
      buckets.forall(_.contains((ByteBuffer.wrap(s.partition), s.bucket))) &&
      partitionFilter.forall(f => f(store.decodePartition(s.partition)))
    }
    val work =
      if (!table.isPrimaryKeyTable) splits.flatMap(s => AppendCompaction.plan(s, table.options, full))
      else {
        val keys = FileKeyOrder.of(KeyValueLayout(table.schema))
        val expired = expiredFiles(table)
        splits.flatMap(s => plan(s, keys, table.options, full, expired))
      }
    if (work.isEmpty) return None
    val results = tasks.run(table, work)
    val commit = new FileStoreCommit(table, commitUser)
    val committed =
      try if (table.isPrimaryKeyTable) commit.append(results) else commit.compactAppend(results, work.map(_.split))
      catch {
        case e: CommitConflictException =>
          // this commit did not land: remove what the tasks created, never an input upgraded in place
          UncommittedFiles.discard(table, results)
          throw e
      }
    if (committed.isDefined) SnapshotExpiration.afterCommit(table)
    committed
  }

  /** The compaction one split needs, if any. With lookup compaction (deletion vectors, or the lookup
   *  changelog producer), level 0 is pushed up when universal compaction picks nothing
   *  (`lookup-compact` radical, or gentle once `lookup-compact.max-interval` level-0 files wait). With
   *  deletion vectors, deletes always leave the output: the rows they delete in the runs left alone are
   *  marked in deletion vectors. */
  def plan(split: DataSplit, keys: FileKeyOrder, options: Map[String, String], full: Boolean,
      expired: DataFileMeta => Boolean = _ => false): Option[BucketCompaction] = {
    val runs = Levels(split.files, keys).runs
    val numLevels = CoreOptions.numLevels(options)
    val caps = TableCapabilities.of(options, primaryKey = true, split.bucketPath)
    val lookup = caps.looksUp
    val dv = caps.deletionVectors
    val sizeRatio = CoreOptions.CompactionSizeRatio.getOrDefault(options)
    def universal = UniversalCompaction.pick(numLevels, runs,
      CoreOptions.CompactionMaxSizeAmplificationPercent.getOrDefault(options), sizeRatio,
      CoreOptions.NumSortedRunCompactionTrigger.getOrDefault(options))
    def forceLevel0 = CoreOptions.LookupCompact.getOrDefault(options) match {
      case LookupCompactMode.Radical => true
      case LookupCompactMode.Gentle => runs.count(_.level == 0) >= CoreOptions.lookupCompactMaxInterval(options)
    }
    // a full compaction of a bucket already in one top-level run rewrites its files holding expired records
    val maxLevel = numLevels - 1
    runs match {
      case Seq(top) if full && top.level == maxLevel =>
        val inputs = top.files.filter(expired)
        return if (inputs.isEmpty) None else Some(BucketCompaction(split, inputs, maxLevel, dropDeletes = true))
      case _ =>
    }
    val unit: Option[CompactUnit] =
      if (full) UniversalCompaction.full(numLevels, runs)
      else if (lookup)
        universal.orElse(if (forceLevel0) UniversalCompaction.forcePickLevel0(numLevels, runs, sizeRatio) else None)
      else universal
    unit.map { u =>
      val names = u.runs.flatMap(_.files.map(_.fileName)).toSet
      val inputs = split.files.filter(f => names.contains(f.fileName))
      // a run left at the output level or above may hold older records of a key that a delete shadows
      val untouchedAtOrAbove = runs.filterNot(r => u.runs.contains(r)).exists(_.level >= u.outputLevel)
      BucketCompaction(split, inputs, u.outputLevel, dropDeletes = u.outputLevel > 0 && (dv || !untouchedAtOrAbove))
    }
  }

  /** One compaction task (where [[CompactTasks]] runs it): merges the inputs and writes the output
   *  files; a table that looks keys up ([[TableCapabilities.looksUp]]) compacts by [[LookupCompaction]], its local lookup
   *  files in `localDir`, the lookup cache's hits and misses counted in `cacheCounts`. */
  def run(table: FileStoreTable, readers: KeyValueReaders, writers: DataFileWriters, w: BucketCompaction,
      localDir: => File, cacheCounts: CacheCounters): CommitMessage = {
    val s = table.schema
    val expiring = readers.copy(recordExpiry = RecordExpiry.of(table.options, s.fields, s.primaryKeys, table.name))
    if (table.capabilities.looksUp) LookupCompaction.run(table, expiring, writers, w, localDir, cacheCounts)
    else merge(table, expiring, writers, w)
  }

  /** With record-level expiration, whether a file's value statistics show a record expired by now
   *  (its oldest time); never without them (Paimon's `isExpireFile`). */
  private def expiredFiles(table: FileStoreTable): DataFileMeta => Boolean = {
    val s = table.schema
    RecordExpiry.of(table.options, s.fields, s.primaryKeys, table.name) match {
      case None => _ => false
      case Some(e) =>
        val field = s.fields(e.ordinal)
        f => {
          val fileSchema = if (f.schemaId == s.id) s else table.schemaManager.schema(f.schemaId)
          ValueStatistics.min(f, fileSchema, field).exists {
            case i: Int => e.expiresFrom(i.toLong)
            case l: Long => e.expiresFrom(l)
            case _ => false
          }
        }
    }
  }

  private def merge(
      table: FileStoreTable, readers: KeyValueReaders, writers: DataFileWriters, w: BucketCompaction): CommitMessage = {
    val split = w.split.copy(files = w.inputs)
    val partitionRow = table.manifestStore.decodePartition(split.partition)
    val dir = table.paths.newFilesDir(partitionRow, split.bucket)
    val files = table.keyValueFiles(writers)
    val out = files.writer(split.partition, dir, split.bucket, level = w.outputLevel, fileSource = DataFileMeta.FileSourceCompact)
    // the full-compaction producer's changelog, at a compaction into the top level
    val changelog = CompactionChangelog.of(table.capabilities, table.options, w.outputLevel)
    val changes = changelog.map(_ =>
      files.writer(split.partition, dir, split.bucket, level = w.outputLevel, changelog = true))
    try {
      val merged = (changelog, changes) match {
        case (Some(mode), Some(c)) =>
          val equalRows = CompactionChangelog.rowEquality(table.schema.fields, table.options)
          readers.mergedRecordsWith(split, w.dropDeletes,
            mf =>
              new ChangelogMergeFunction(mf, mode, equalRows, (kind, kv) => c.write(kv.value, kind, kv.sequenceNumber)))
        case _ => readers.mergedRecords(split, skipLevel0 = false, dropDeletes = w.dropDeletes)
      }
      merged.foreach(kv => out.write(kv.value, kv.valueKind, kv.sequenceNumber))
      CommitMessage(split.partition, split.bucket, split.totalBuckets, Seq.empty,
        compactBefore = w.inputs, compactAfter = out.finish(), compactChangelog = changes.map(_.finish()).getOrElse(Seq.empty))
    } catch {
      case e: Throwable =>
        out.abort()
        changes.foreach(_.abort())
        throw e
    }
  }
}
