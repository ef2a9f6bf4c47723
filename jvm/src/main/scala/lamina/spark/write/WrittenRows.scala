package lamina.spark.write

/** How many rows one task's writer was handed, by what Spark asked of it: `inserted` (an append
 *  table's written rows, row-level DML's inserts), `updated` and `deleted` (row-level DML), `upserted`
 *  (rows written into a primary-key table by key). Summed on the driver, which decides from the write's
 *  mode and command which of them are the statement's [[lamina.table.commit.RowCounts]]. */
final case class WrittenRows(inserted: Long = 0, updated: Long = 0, deleted: Long = 0, upserted: Long = 0) {
  def +(o: WrittenRows): WrittenRows =
    WrittenRows(inserted + o.inserted, updated + o.updated, deleted + o.deleted, upserted + o.upserted)
}

/** A writer's running [[WrittenRows]] (one per task: no synchronisation). */
final class RowTally {
  var inserted, updated, deleted, upserted = 0L

  def result: WrittenRows = WrittenRows(inserted, updated, deleted, upserted)
}
