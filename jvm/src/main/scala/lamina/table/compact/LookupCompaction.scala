package lamina.table.compact

import java.io.File

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow

import lamina.dv.{DeletionVectorsIndexFile, DeletionVectorsMaintainer}
import lamina.format.DataFileWriters
import lamina.lookup.cache.CacheCounters
import lamina.mergetree.{
  ChangelogMergeFunction,
  CompactionChangelog,
  FileKeyOrder,
  KeyValue,
  KeyValueFileWriter,
  KeyValueReaders,
  Levels,
  LookupLevels,
  LookupMergeFunction,
  MergeFunction
}
import lamina.mergetree.function.MergeFunctions
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.commit.{CommitMessage, DeletionVectorsIndexWriter, IndexChange}
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.scan.SnapshotDeletionFiles

/** The compaction task of a table that looks keys up (seed 002's lookup compaction): a table with
 *  deletion vectors, or with `changelog-producer` = lookup. The picked runs (every level-0 file among
 *  them) are merged, and each key's live row in the levels left alone is looked up ([[LookupLevels]])
 *  and merged in as the key's oldest record. With deletion vectors its position is marked in its
 *  file's vector instead of rewriting that file, delete records leave the output (its level is above
 *  0, and the rows they delete are marked), files left with no live row leave the table, and the
 *  bucket's vectors are written as a new index file, which the COMPACT snapshot's index manifest puts
 *  in place of the bucket's old one. With the lookup producer, each key of a level-0 file gets its
 *  changelog ([[ChangelogMergeFunction]]), written to changelog files that the COMPACT snapshot
 *  lists. */
object LookupCompaction {

  /** The inputs in groups of files whose key ranges chain by overlap, in key order: files of one group
   *  merge; groups never share a key. Pure. */
  def sections(files: Seq[DataFileMeta], order: FileKeyOrder): Seq[Seq[DataFileMeta]] = {
    val ord = order.ordering
    val sorted = files.map(f => (f, order.minKey(f), order.maxKey(f))).sortWith((a, b) => ord.lt(a._2, b._2))
    val out = ArrayBuffer.empty[ArrayBuffer[DataFileMeta]]
    var max: InternalRow = null
    sorted.foreach { case (f, lo, hi) =>
      if (out.isEmpty || ord.gt(lo, max)) out += ArrayBuffer(f) else out.last += f
      if (max == null || ord.gt(hi, max)) max = hi
    }
    out.map(_.toSeq).toSeq
  }

  /** Runs `w`; the lookups' pages found cached or read from local files go into `cacheCounts`. */
  def run(table: FileStoreTable, readers: KeyValueReaders, writers: DataFileWriters, w: BucketCompaction,
      localDir: File, cacheCounts: CacheCounters): CommitMessage = {
    val split = w.split
    val inputs = w.inputs.map(_.fileName).toSet
    val dv = table.capabilities.deletionVectors
    val existing = split.deletionFiles.map { case (name, file) => name -> DeletionVectorsIndexFile.read(table.fileIO, file) }
    // without deletion vectors the marks only keep one lookup from finding a row twice; they are not written
    val vectors = new DeletionVectorsMaintainer(existing, CoreOptions.DeletionVectorsBitmap64.getOrDefault(table.options))
    val kept = split.files.filterNot(f => inputs.contains(f.fileName))
    val order = FileKeyOrder.of(KeyValueLayout(table.schema))
    val keptRuns = Levels(kept, order).runs
    if (keptRuns.exists(_.level == 0))
      throw new IllegalStateException(s"a lookup compaction of ${table.name} leaves level-0 files behind")
    val changelog = CompactionChangelog.of(table.capabilities, table.options, w.outputLevel)
    val olderRowsMatter = !MergeFunctions.ignoresOlderRows(table.options, table.name)
    val levels = new LookupLevels(readers, split.bucketPath, keptRuns, vectors, olderRowsMatter || changelog.isDefined,
      localDir, cacheCounts)
    val partitionRow = table.manifestStore.decodePartition(split.partition)
    val dir = table.paths.newFilesDir(partitionRow, split.bucket)
    val files = table.keyValueFiles(writers)
    def writer() =
      files.writer(split.partition, dir, split.bucket, level = w.outputLevel, fileSource = DataFileMeta.FileSourceCompact)
    val changes = changelog.map(_ =>
      files.writer(split.partition, dir, split.bucket, level = w.outputLevel, changelog = true))
    val equalRows = changelog.map(_ => CompactionChangelog.rowEquality(table.schema.fields, table.options))
    val lookup = (kv: KeyValue) => levels.lookupAndDelete(kv.key)
    def merging(mf: MergeFunction): MergeFunction = {
      val looking = new LookupMergeFunction(mf, lookup, feed = olderRowsMatter)
      (changelog, changes) match {
        case (Some(mode), Some(out)) =>
          new ChangelogMergeFunction(looking, mode, equalRows.get, (kind, kv) => out.write(kv.value, kind, kv.sequenceNumber),
            () => looking.lookedUp)
        case _ => looking
      }
    }
    // a file that no other input overlaps, without deletes or a vector, keeps its bytes: it moves to the
    // output level (Paimon's upgrade), its keys looked up only to mark their older rows (and for their
    // changelog); not where the merge engine changes a key's only record (sequence groups, some
    // aggregates) or its older row would merge in
    val singleInsertIsResult = readers.mergeFunctions.create().singleInsertIsResult
    def upgradable(section: Seq[DataFileMeta]) = singleInsertIsResult && section.size == 1 && {
      val f = section.head
      f.level != w.outputLevel && f.deleteRowCount.contains(0L) && !split.deletionFiles.contains(f.fileName) &&
      (keptRuns.isEmpty || !olderRowsMatter)
    }
    val written = ArrayBuffer.empty[DataFileMeta]
    var index: Option[IndexChange] = None
    var open: Option[KeyValueFileWriter] = None
    try {
      LookupCompaction.sections(w.inputs, order).foreach { section =>
        if (upgradable(section)) {
          val f = section.head
          if (keptRuns.nonEmpty || changelog.isDefined) {
            val mf = merging(readers.mergeFunctions.create())
            readers.readFile(split.bucketPath, f).foreach { kv =>
              mf.reset()
              mf.atLevel(f.level)
              mf.add(kv)
              mf.result()
            }
          }
          written += f.copy(level = w.outputLevel)
        } else {
          val out = writer()
          open = Some(out)
          readers.mergedRecordsWith(split.copy(files = section), dropDeletes = dv || w.dropDeletes, merging)
            .foreach(kv => out.write(kv.value, kv.valueKind, kv.sequenceNumber))
          written ++= out.finish()
          open = None
        }
      }
      val emptied = if (!dv) Seq.empty
      else {
        w.inputs.foreach(f => vectors.removeFile(f.fileName))
        val gone = kept.filter(f => vectors.deletedCount(f.fileName) >= f.rowCount)
        gone.foreach(f => vectors.removeFile(f.fileName))
        if (vectors.changed) {
          // the bucket's index files, those left holding only vectors of files gone included: the
          // rewritten index keeps the vectors of live files alone
          val before = SnapshotDeletionFiles.indexFileNames(table, table.snapshotManager.snapshot(split.snapshotId),
            split.partition, split.bucket)
          index = Some(IndexChange(before, DeletionVectorsIndexWriter.write(table, vectors.vectors)))
        }
        gone
      }
      CommitMessage(split.partition, split.bucket, split.totalBuckets, Seq.empty,
        compactBefore = w.inputs ++ emptied, compactAfter = written.toSeq, indexChange = index,
        compactChangelog = changes.map(_.finish()).getOrElse(Seq.empty))
    } catch {
      case e: Throwable =>
        open.foreach(_.abort())
        changes.foreach(_.abort())
        DataFileWriters.discard(table.fileIO, None,
          written.filterNot(f => inputs.contains(f.fileName)).toSeq
            .flatMap(table.paths.dataFileWithExtras(partitionRow, split.bucket, _)))
        index.foreach(c => DeletionVectorsIndexWriter.discard(table, c.after))
        throw e
    } finally levels.close()
  }
}
