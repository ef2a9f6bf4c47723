package lamina.dv

import scala.collection.mutable

import org.roaringbitmap.longlong.Roaring64Bitmap

/** The deletion vectors of one bucket while a compaction changes them: the vectors the snapshot holds
 *  for the bucket's data files, positions that the compaction deletes in files it keeps, and files it
 *  removes (whose vectors leave with them). Not thread-safe: one per compaction task.
 *  Invariant: a file's vector holds its snapshot positions plus every position [[delete]] accepted. */
final class DeletionVectorsMaintainer(existing: Map[String, DeletionVector], bitmap64: Boolean) {
  // positions as bitmaps, not boxed sets: a compaction may delete a million rows
  private val added = mutable.HashMap.empty[String, Roaring64Bitmap]
  private val removed = mutable.HashSet.empty[String]

  def isDeleted(dataFile: String, position: Long): Boolean =
    existing.get(dataFile).exists(_.isDeleted(position)) || added.get(dataFile).exists(_.contains(position))

  /** Marks `position` of `dataFile` deleted; false when it already was. */
  def delete(dataFile: String, position: Long): Boolean = {
    require(position >= 0, s"a row position of $dataFile must be at least 0, got $position")
    !isDeleted(dataFile, position) && { added.getOrElseUpdate(dataFile, new Roaring64Bitmap()).addLong(position); true }
  }

  /** Marks every position of `positions` in `dataFile` deleted (those already deleted stay so). */
  def deleteAll(dataFile: String, positions: Roaring64Bitmap): Unit = {
    val it = positions.getLongIterator
    while (it.hasNext) delete(dataFile, it.next())
  }

  /** The file leaves the bucket (a compaction input, or a file whose every row is deleted). */
  def removeFile(dataFile: String): Unit = removed += dataFile

  /** Rows of `dataFile` deleted, counting both the snapshot's positions and this maintainer's. */
  def deletedCount(dataFile: String): Long =
    existing.get(dataFile).map(_.cardinality).getOrElse(0L) + added.get(dataFile).map(_.getLongCardinality).getOrElse(0L)

  /** Whether the bucket's vectors differ from the snapshot's. */
  def changed: Boolean = added.nonEmpty || removed.exists(existing.contains)

  /** Positions this maintainer deleted, by file (for a changelog or a test). */
  def newlyDeleted: Map[String, Seq[Long]] = added.map { case (f, ps) => f -> positionsOf(ps).toSeq }.toMap

  private def positionsOf(b: Roaring64Bitmap): Iterator[Long] = {
    val it = b.getLongIterator
    Iterator.continually(()).takeWhile(_ => it.hasNext).map(_ => it.next())
  }

  /** The bucket's vectors after the change, by data file name: what its index file holds. */
  def vectors: Seq[(String, DeletionVector)] = {
    val names = (existing.keySet ++ added.keySet).diff(removed).toSeq.sorted
    names.flatMap { n =>
      val more = added.get(n)
      existing.get(n) match {
        case Some(dv) if more.isEmpty && dv.isInstanceOf[Bitmap64DeletionVector] == bitmap64 => Some(n -> dv)
        case old =>
          val ps = old.iterator.flatMap(_.positions) ++ more.iterator.flatMap(positionsOf)
          val dv = DeletionVector.of(ps.toSeq, bitmap64)
          if (dv.isEmpty) None else Some(n -> dv)
      }
    }
  }
}
