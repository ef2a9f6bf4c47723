package lamina.dv

import lamina.errors.CorruptFileException
import lamina.io.FileIO

/** Drops the deleted rows of data files as they are read, in executors: Paimon's rule, each data
 *  file's vector applied to the positions of its rows (0 for the file's first row). The rows must be
 *  all of the file's rows in file order: a reader that skips rows (pushed-down filters) would shift
 *  every position after them. Serializable. */
final case class DeletionVectorFilter(fileIO: FileIO) {

  /** `rows` of the data file `dataFile` (which holds `rowCount` rows) without those its vector in
   *  `deletionFiles` deletes; `rows` unchanged when it has none. A vector that deletes a position
   *  past the file's rows is a [[CorruptFileException]] naming the index file. */
  def apply[T](deletionFiles: Map[String, DeletionFile], dataFile: String, rowCount: Long, rows: => Iterator[T]): Iterator[T] =
    deletionFiles.get(dataFile) match {
      case None => rows
      case Some(file) =>
        val dv = DeletionVectorsIndexFile.read(fileIO, file)
        if (dv.lastPosition >= rowCount)
          throw new CorruptFileException(file.indexFilePath, file.range.offset,
            s"deleted positions below the $rowCount rows of $dataFile", s"position ${dv.lastPosition}")
        dv.skipDeleted(rows)
    }
}
