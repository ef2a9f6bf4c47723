package lamina.table.commit

import lamina.dv.{DeletionVector, DeletionVectorsIndexFile}
import lamina.table.{DeletionVectorRules, FileStorePaths, FileStoreTable}
import lamina.table.manifest.IndexFileMeta
import lamina.table.options.CoreOptions

/** Writes one bucket's deletion vectors as index files of Paimon's format under `<table>/index/`, and
 *  describes them for the index manifest: rolled at `deletion-vector.index-file.target-size`
 *  ([[DeletionVectorsIndexFile.encodeRolling]]) in a table whose buckets may hold several
 *  ([[DeletionVectorRules.rollsIndexFiles]]), else one file; named as Paimon names the files of one
 *  writer (`index-<uuid>-<n>`, one uuid, `n` from 0). */
object DeletionVectorsIndexWriter {

  /** The index files of `vectors` (by data file name), in order; none when there are no vectors. A
   *  failed write leaves none of its files behind. */
  def write(table: FileStoreTable, vectors: Seq[(String, DeletionVector)]): Seq[IndexFileMeta] = {
    val target =
      if (DeletionVectorRules.rollsIndexFiles(table.schema))
        CoreOptions.DeletionVectorIndexFileTargetSize.getOrDefault(table.options)
      else Long.MaxValue
    val uuid = FileStorePaths.newUuid()
    val files = DeletionVectorsIndexFile.encodeRolling(vectors, target).zipWithIndex.map { case ((bytes, ranges), n) =>
      IndexFileMeta(DeletionVectorsIndexFile.IndexType, s"index-$uuid-$n", bytes.length.toLong, ranges.size.toLong,
        Some(ranges), None) -> bytes
    }
    try files.foreach { case (meta, bytes) => table.fileIO.writeBytes(table.paths.indexFile(meta.fileName), bytes) }
    catch { case e: Throwable => discard(table, files.map(_._1)); throw e }
    files.map(_._1)
  }

  def discard(table: FileStoreTable, files: Seq[IndexFileMeta]): Unit =
    files.foreach(f => table.fileIO.deleteQuietly(table.paths.indexFile(f.fileName)))
}
