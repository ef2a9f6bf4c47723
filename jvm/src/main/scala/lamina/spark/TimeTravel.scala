package lamina.spark

import lamina.errors.NotFoundException
import lamina.table.FileStoreTable

/** Resolves VERSION AS OF / TIMESTAMP AS OF and the scan options to one snapshot id. */
object TimeTravel {
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
