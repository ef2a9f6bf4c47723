package lamina.dv

import lamina.errors.CorruptFileException
import lamina.io.FileIO

/** Drops the deleted rows of data files as they are read, in executors: Paimon's rule, each data
 *  file's vector applied to the positions of its rows (0 for the file's first row). The rows must be
 *  all of the file's rows in file order: a reader that skips rows (pushed-down filters) would shift
 *  every position after them. Serializable. */
final case class DeletionVectorFilter(fileIO: FileIO) {

  /** `rows` of the data file `dataFile` (which holds `rowCount` rows) without those its vector in
   *  `deletionFiles` deletes; `rows` unchanged when it has none. `onDeleted` is called for each row left out. */
  def apply[T](deletionFiles: Map[String, DeletionFile], dataFile: String, rowCount: Long, rows: => Iterator[T],
      onDeleted: () => Unit = DeletionVector.Ignore): Iterator[T] =
    vector(deletionFiles, dataFile, rowCount).fold(rows)(_.skipDeleted(rows, onDeleted))

  /** The vector of `dataFile` in `deletionFiles`, read and checked. A vector that deletes a position
   *  past the file's `rowCount` rows is a [[CorruptFileException]] naming the index file. */
  def vector(deletionFiles: Map[String, DeletionFile], dataFile: String, rowCount: Long): Option[DeletionVector] =
    deletionFiles.get(dataFile).map { file =>
      val dv = DeletionVectorsIndexFile.read(fileIO, file)
      if (dv.lastPosition >= rowCount)
        throw new CorruptFileException(file.indexFilePath, file.range.offset,
          s"deleted positions below the $rowCount rows of $dataFile", s"position ${dv.lastPosition}")
      dv
    }
}
