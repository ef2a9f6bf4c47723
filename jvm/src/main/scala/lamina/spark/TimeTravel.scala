package lamina.spark

import lamina.errors.NotFoundException
import lamina.table.FileStoreTable

/** Resolves VERSION AS OF / TIMESTAMP AS OF and the scan options to one snapshot id. */
object TimeTravel {

  /** `VERSION AS OF`: a tag's name, or else a snapshot id, as in Paimon. A tag's snapshot reads from
   *  the tag once its snapshot file expired. */
  def resolveVersion(table: FileStoreTable, version: String): Long = {
    val v = version.trim
    val tag = if (v.nonEmpty && !v.forall(_.isDigit)) table.snapshotManager.tags.get(v) else None
    tag.map(_.snapshot.id).getOrElse {
      val id = v.toLongOption.getOrElse(throw new NotFoundException(
          s"Version '$version' of table ${table.name} is neither a snapshot id nor a tag"))
      table.snapshotManager.snapshot(id).id
    }
  }

  def resolve(table: FileStoreTable, snapshotId: Option[Long], timestampMillis: Option[Long]): Option[Long] = {
    (snapshotId, timestampMillis) match {
      case (Some(id), _) =>
        table.snapshotManager.snapshot(id) // fails with a clear message when missing
        Some(id)
      case (None, Some(ts)) =>
        val s = table.snapshotManager.earlierOrEqualTime(ts).getOrElse(
          throw new NotFoundException(
            s"Table ${table.name} has no snapshot at or before ${java.time.Instant.ofEpochMilli(ts)} ($ts ms)"))
        Some(s.id)
      case _ => None
    }
  }
}
