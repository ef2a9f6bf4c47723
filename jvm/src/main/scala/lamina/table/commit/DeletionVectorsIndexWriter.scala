package lamina.table.commit

import org.apache.hadoop.fs.Path

import lamina.dv.{DeletionVector, DeletionVectorsIndexFile}
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.IndexFileMeta

/** Writes one bucket's deletion vectors as one index file of Paimon's format under `<table>/index/`
 *  (`index-<uuid>-0`), and describes it for the index manifest. */
object DeletionVectorsIndexWriter {

  /** The index file of `vectors` (by data file name), or None when there are none. */
  def write(table: FileStoreTable, vectors: Seq[(String, DeletionVector)]): Option[IndexFileMeta] =
    if (vectors.isEmpty) None
    else {
      val (bytes, ranges) = DeletionVectorsIndexFile.encode(vectors)
      val name = s"index-${FileStorePaths.newUuid()}-0"
      table.fileIO.writeBytes(new Path(table.paths.indexDir, name), bytes)
      Some(IndexFileMeta(DeletionVectorsIndexFile.IndexType, name, bytes.length.toLong, ranges.size.toLong, Some(ranges),
          None))
    }

  def discard(table: FileStoreTable, files: Seq[IndexFileMeta]): Unit =
    files.foreach(f => table.fileIO.deleteQuietly(new Path(table.paths.indexDir, f.fileName)))
}
