package lamina.api

import lamina.errors.BadInputException
import lamina.table.catalog.Metastore
import lamina.table.consumer.{Consumer, ConsumerManager}

/** Streaming consumers for `CALL sys.reset_consumer`: a `db.t` name and a consumer id in. */
object Consumers {

  /** Moves consumer `id` of `table` so that its next stream starts at snapshot `next` (from the
   *  earliest snapshot kept to one past the latest, which reads only what is committed from now on),
   *  or removes the consumer when `next` is None (removing one that does not exist does nothing). */
  def reset(warehouse: Metastore, table: String, id: String, next: Option[Long]): Unit = {
    val t = warehouse.loadTable(table)
    val consumers = ConsumerManager.of(t)
    next match {
      case None => consumers.delete(id)
      case Some(n) =>
        val snapshots = t.snapshotManager
        val earliest = snapshots.earliestId().getOrElse(1L)
        val end = snapshots.latestId().getOrElse(0L) + 1
        if (n < earliest || n > end)
          throw new BadInputException(
            s"Cannot reset consumer '$id' of table ${t.name} to snapshot $n: the table keeps snapshots " +
              (if (end > earliest) s"$earliest to ${end - 1}, so the next snapshot to read is one of $earliest to $end"
               else s"none yet, so the next snapshot to read is $end"))
        consumers.reset(id, Consumer(n))
    }
  }
}
