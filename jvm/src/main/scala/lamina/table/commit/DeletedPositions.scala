package lamina.table.commit

import scala.collection.mutable

import org.roaringbitmap.longlong.Roaring64Bitmap

/** The row positions a DELETE, UPDATE or MERGE of an append table with deletion vectors deletes, by
 *  data file name (positions as a scan of the operation's snapshot counted them, deleted rows
 *  skipped): what each writer task collects, merged on the driver into one. Travels from executors to
 *  the driver. Invariant: every bitmap holds at least one position, each at least 0. */
final class DeletedPositions extends Serializable {
  private val byFile = mutable.HashMap.empty[String, Roaring64Bitmap]

  /** The bitmap of the file added last: rows of one file reach a task together. */
  @transient private var lastFile: String = _
  @transient private var last: Roaring64Bitmap = _

  def add(dataFile: String, position: Long): Unit = {
    require(position >= 0, s"a row position of $dataFile must be at least 0, got $position")
    if (dataFile != lastFile) {
      last = byFile.getOrElseUpdate(dataFile, new Roaring64Bitmap())
      lastFile = dataFile
    }
    last.addLong(position)
  }

  /** Adds every position of `other` (another task's). */
  def addAll(other: DeletedPositions): Unit =
    other.byFile.foreach { case (f, ps) => byFile.getOrElseUpdate(f, new Roaring64Bitmap()).or(ps) }

  def files: Map[String, Roaring64Bitmap] = byFile.toMap

  def isEmpty: Boolean = byFile.isEmpty

  /** How many positions are deleted, over all files. */
  def count: Long = byFile.values.map(_.getLongCardinality).sum
}

object DeletedPositions {
  def merged(all: Seq[DeletedPositions]): DeletedPositions = {
    val out = new DeletedPositions
    all.foreach(out.addAll)
    out
  }
}
