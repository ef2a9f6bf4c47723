package lamina.table.compact

import lamina.dv.DeletionVectorFilter
import lamina.format.{DataFileWriters, FileSchemaReader}
import lamina.mergetree.KeyValueReaders
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.scan.DataSplit
import lamina.table.sink.RollingFileWriter

/** Compaction of append tables: a bucket's files rewritten into files of about `target-file-size`,
 *  without the rows their deletion vectors delete. The commit removes the inputs, and their vectors
 *  with them, and adds the outputs in one COMPACT snapshot; an input whose vector a concurrent commit
 *  changed is a conflict ([[lamina.table.commit.FileStoreCommit.compactAppend]]). */
object AppendCompaction {

  /** What one bucket needs: `full`, every file, when it holds more than one or one with a deletion
   *  vector; minor, the files whose vectors delete more than `compaction.delete-ratio-threshold` of
   *  their rows, with the small files (below `target-file-size` times `compaction.small-file-ratio`) once
   *  there are such files to rewrite or `compaction.min.file-num` small ones. None when nothing is to be rewritten. */
  def plan(split: DataSplit, options: Map[String, String], full: Boolean): Option[BucketCompaction] = {
    val files = split.files
    def deletedShare(f: DataFileMeta): Double = split.deletionFiles.get(f.fileName) match {
      case None => 0.0
      // a vector of unknown cardinality (Paimon before 0.9) counts as deleting every row
      case Some(d) => d.range.cardinality.map(_.toDouble / math.max(1L, f.rowCount)).getOrElse(1.0)
    }
    val inputs =
      if (full) { if (files.size > 1 || files.exists(f => split.deletionFiles.contains(f.fileName))) files else Nil }
      else {
        val threshold = CoreOptions.CompactionDeleteRatioThreshold.getOrDefault(options)
        val target = CoreOptions.TargetFileSize.getOrDefault(options) *
          CoreOptions.CompactionSmallFileRatio.getOrDefault(options)
        val heavy = files.filter(f => deletedShare(f) > threshold)
        val small = files.filter(f => f.fileSize < target && !heavy.contains(f))
        if (heavy.nonEmpty || small.size >= CoreOptions.CompactionMinFileNum.getOrDefault(options))
          files.filter(f => heavy.contains(f) || small.contains(f))
        else Nil
      }
    if (inputs.isEmpty) None else Some(BucketCompaction(split, inputs, outputLevel = 0, dropDeletes = true))
  }

  /** One compaction task: the inputs' live rows, in the current schema (`readers` by schema id),
   *  written by `taskId` into the bucket's directory. */
  def run(table: FileStoreTable, readers: Map[Long, FileSchemaReader], writers: DataFileWriters, w: BucketCompaction,
      taskId: Int): CommitMessage = {
    val split = w.split
    val dir = table.paths.newFilesDir(table.manifestStore.decodePartition(split.partition), split.bucket)
    val out = new RollingFileWriter(table, writers, split.partition, dir, split.bucket,
      CoreOptions.TargetFileSize.getOrDefault(table.options), taskId, DataFileMeta.FileSourceCompact)
    val deletionVectors = DeletionVectorFilter(table.fileIO)
    try {
      w.inputs.foreach { f =>
        val r = readers(f.schemaId)
        val project = r.projection()
        deletionVectors(split.deletionFiles, f.fileName, f.rowCount,
          r.open(split.bucketPath, KeyValueReaders.refOf(f), table.name)).foreach(row => out.write(project(row)))
      }
      CommitMessage(split.partition, split.bucket, split.totalBuckets, Seq.empty, compactBefore = w.inputs,
        compactAfter = out.finish())
    } catch {
      case e: Throwable => out.abort(); throw e
    }
  }
}
