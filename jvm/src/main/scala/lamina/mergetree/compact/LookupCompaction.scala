package lamina.mergetree.compact

import java.io.File

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow

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

  def run(table: FileStoreTable, readers: KeyValueReaders, writers: DataFileWriters, w: BucketCompaction,
      localDir: File): CommitMessage = {
    val split = w.split
    val inputs = w.inputs.map(_.fileName).toSet
    val existing = split.deletionFiles.map { case (name, file) => name -> DeletionVectorsIndexFile.read(table.fileIO, file) }
    val vectors = new DeletionVectorsMaintainer(existing, CoreOptions.DeletionVectorsBitmap64.getOrDefault(table.options))
    val kept = split.files.filterNot(f => inputs.contains(f.fileName))
    val order = FileKeyOrder.of(KeyValueLayout(table.schema))
    val keptRuns = Levels(kept, order).runs
    if (keptRuns.exists(_.level == 0))
      throw new IllegalStateException(s"a lookup compaction of ${table.name} leaves level-0 files behind")
    val withValue = !MergeFunctions.ignoresOlderRows(table.options, table.name)
    val levels = new LookupLevels(readers, split.bucketPath, keptRuns, vectors, withValue, localDir)
    val partitionRow = table.manifestStore.decodePartition(split.partition)
    def writer() = new KeyValueFileWriter(table, writers, split.partition, table.paths.bucketDir(partitionRow, split.bucket),
      split.bucket, 0L, CoreOptions.TargetFileSize.getOrDefault(table.options), 0,
      level = w.outputLevel, fileSource = DataFileMeta.FileSourceCompact)
    // a file that no other input overlaps, without deletes or a vector, keeps its bytes: it moves to the
    // output level (Paimon's upgrade), its keys looked up only to mark their older rows; not where the
    // merge engine changes a key's only record (sequence groups, some aggregates)
    val singleInsertIsResult = readers.mergeFunctions.create().singleInsertIsResult
    def upgradable(section: Seq[DataFileMeta]) = singleInsertIsResult && section.size == 1 && {
      val f = section.head
      f.level != w.outputLevel && f.deleteRowCount.contains(0L) && !split.deletionFiles.contains(f.fileName) &&
      (keptRuns.isEmpty || !withValue)
    }
    val written = ArrayBuffer.empty[DataFileMeta]
    var index: Option[IndexChange] = None
    var open: Option[KeyValueFileWriter] = None
    try {
      LookupCompaction.sections(w.inputs, order).foreach { section =>
        if (upgradable(section)) {
          val f = section.head
          if (keptRuns.nonEmpty) readers.readFile(split.bucketPath, f).foreach(kv => levels.lookupAndDelete(kv.key))
          written += f.copy(level = w.outputLevel)
        } else {
          val out = writer()
          open = Some(out)
          readers.mergedRecordsWith(split.copy(files = section), dropDeletes = true,
            mf => new LookupMergeFunction(mf, kv => levels.lookupAndDelete(kv.key).filter(_ => withValue)))
            .foreach(kv => out.write(kv.value, kv.valueKind, kv.sequenceNumber))
          written ++= out.finish()
          open = None
        }
      }
      w.inputs.foreach(f => vectors.removeFile(f.fileName))
      val emptied = kept.filter(f => vectors.deletedCount(f.fileName) >= f.rowCount)
      emptied.foreach(f => vectors.removeFile(f.fileName))
      if (vectors.changed) {
        val before = split.deletionFiles.values.map(f => f.indexFilePath.substring(f.indexFilePath.lastIndexOf('/') + 1))
        index = Some(IndexChange(before.toSet, DeletionVectorsIndexWriter.write(table, vectors.vectors).toSeq))
      }
      CommitMessage(split.partition, split.bucket, split.totalBuckets, Seq.empty,
        compactBefore = w.inputs ++ emptied, compactAfter = written.toSeq, indexChange = index)
    } catch {
      case e: Throwable =>
        open.foreach(_.abort())
        val dir = table.paths.bucketDir(partitionRow, split.bucket)
        DataFileWriters.discard(table.fileIO, dir, None,
          written.filterNot(f => inputs.contains(f.fileName)).map(_.fileName).toSeq)
        index.foreach(c => DeletionVectorsIndexWriter.discard(table, c.after))
        throw e
    } finally levels.close()
  }
}
