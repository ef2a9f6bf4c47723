package lamina.table.scan

/** Where a streaming read stands: the next unit it reads is unit `index` of snapshot `snapshotId`,
 *  of the snapshot read whole when `full` (the start of a `*-full` scan mode), of its changes
 *  otherwise. Positions are ordered by snapshot, then index: a snapshot is read whole only where a
 *  stream starts, and its changes are never read then, so the two never share a snapshot. */
final case class StreamPosition(snapshotId: Long, index: Int, full: Boolean) extends Ordered[StreamPosition] {
  override def compare(o: StreamPosition): Int = {
    val c = java.lang.Long.compare(snapshotId, o.snapshotId)
    if (c != 0) c else Integer.compare(index, o.index)
  }

  /** The first position after the last unit of this snapshot: the changes of the next one. */
  def nextSnapshot: StreamPosition = StreamPosition(snapshotId + 1, 0, full = false)
}

/** How much one micro-batch takes: at most `maxFiles` files and `maxRows` rows (by the files' row
 *  counts), but always at least one unit, so that a stream moves on. */
final case class StreamLimit(maxFiles: Option[Int], maxRows: Option[Long]) {
  def exceeded(files: Int, rows: Long): Boolean = maxFiles.exists(files > _) || maxRows.exists(rows > _)
}

object StreamLimit {
  val None: StreamLimit = StreamLimit(scala.None, scala.None)
}
