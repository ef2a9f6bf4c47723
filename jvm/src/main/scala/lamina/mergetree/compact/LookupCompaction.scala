package lamina.mergetree.compact

import java.io.File

import lamina.dv.{DeletionVectorsIndexFile, DeletionVectorsMaintainer}
import lamina.format.DataFileWriters
import lamina.mergetree.{FileKeyOrder, KeyValueFileWriter, KeyValueReaders, Levels, LookupLevels, LookupMergeFunction}
import lamina.mergetree.function.MergeFunctions
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.commit.{CommitMessage, DeletionVectorsIndexWriter, IndexChange}
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions

/** The compaction task of a table with deletion vectors (seed 002's lookup compaction): the picked
 *  runs (every level-0 file among them) are merged, each key's live row in the levels left alone is
 *  looked up ([[LookupLevels]]) and merged in as the key's oldest record, and its position marked in
 *  its file's deletion vector instead of rewriting that file. Delete records leave the output (its
 *  level is above 0, and the rows they delete are marked). Files left with no live row leave the
 *  table. The bucket's vectors are written as a new index file, which the COMPACT snapshot's index
 *  manifest puts in place of the bucket's old one. */
object LookupCompaction {

  def run(table: FileStoreTable, readers: KeyValueReaders, writers: DataFileWriters, w: BucketCompaction,
      localDir: File): CommitMessage = {
    val split = w.split
    val inputs = w.inputs.map(_.fileName).toSet
    val existing = split.deletionFiles.map { case (name, file) => name -> DeletionVectorsIndexFile.read(table.fileIO, file) }
    val vectors = new DeletionVectorsMaintainer(existing, CoreOptions.DeletionVectorsBitmap64.getOrDefault(table.options))
    val kept = split.files.filterNot(f => inputs.contains(f.fileName))
    val keptRuns = Levels(kept, FileKeyOrder.of(KeyValueLayout(table.schema))).runs
    if (keptRuns.exists(_.level == 0))
      throw new IllegalStateException(s"a lookup compaction of ${table.name} leaves level-0 files behind")
    val withValue = !MergeFunctions.ignoresOlderRows(table.options, table.name)
    val levels = new LookupLevels(readers, split.bucketPath, keptRuns, vectors, withValue, localDir)
    val partitionRow = table.manifestStore.decodePartition(split.partition)
    val out = new KeyValueFileWriter(table, writers, split.partition, table.paths.bucketDir(partitionRow, split.bucket),
      split.bucket, 0L, CoreOptions.TargetFileSize.getOrDefault(table.options), 0,
      level = w.outputLevel, fileSource = DataFileMeta.FileSourceCompact)
    var index: Option[IndexChange] = None
    try {
      val merged = readers.mergedRecordsWith(split.copy(files = w.inputs), dropDeletes = true,
        mf => new LookupMergeFunction(mf, kv => levels.lookupAndDelete(kv.key).filter(_ => withValue)))
      merged.foreach(kv => out.write(kv.value, kv.valueKind, kv.sequenceNumber))
      val written = out.finish()
      w.inputs.foreach(f => vectors.removeFile(f.fileName))
      val emptied = kept.filter(f => vectors.deletedCount(f.fileName) >= f.rowCount)
      emptied.foreach(f => vectors.removeFile(f.fileName))
      if (vectors.changed) {
        val before = split.deletionFiles.values.map(f => f.indexFilePath.substring(f.indexFilePath.lastIndexOf('/') + 1))
        index = Some(IndexChange(before.toSet, DeletionVectorsIndexWriter.write(table, vectors.vectors).toSeq))
      }
      CommitMessage(split.partition, split.bucket, split.totalBuckets, Seq.empty,
        compactBefore = w.inputs ++ emptied, compactAfter = written, indexChange = index)
    } catch {
      case e: Throwable =>
        out.abort()
        index.foreach(c => DeletionVectorsIndexWriter.discard(table, c.after))
        throw e
    } finally levels.close()
  }
}
