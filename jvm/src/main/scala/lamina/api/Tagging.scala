package lamina.api

import java.time.{Duration, Instant, LocalDateTime, ZoneId}

import lamina.errors.BadInputException
import lamina.table.catalog.Metastore
import lamina.table.lifecycle.Tags
import lamina.table.options.OptionKind

/** Tags for `CALL sys.create_tag`, `create_tag_from_timestamp`, `replace_tag`, `rename_tag` and
 *  `delete_tag`: plain values in (a `db.t` name, tag names, snapshot ids, durations as text such as
 *  `7 d`), the tagged snapshot id out where there is one. */
object Tagging {

  def create(warehouse: Metastore, table: String, tag: String, snapshotId: Option[Long],
      timeRetained: Option[String]): Long =
    Tags.create(warehouse.loadTable(table), tag, snapshotId, retention(timeRetained)).snapshot.id

  /** The tagged snapshot's id and commit time (epoch ms). */
  def createFromTimestamp(warehouse: Metastore, table: String, tag: String, timestampMillis: Long,
      timeRetained: Option[String]): (Long, Long) = {
    val t = Tags.createFromTimestamp(warehouse.loadTable(table), tag, timestampMillis, retention(timeRetained))
    (t.snapshot.id, t.snapshot.timeMillis)
  }

  def replace(warehouse: Metastore, table: String, tag: String, snapshotId: Option[Long],
      timeRetained: Option[String]): Long =
    Tags.replace(warehouse.loadTable(table), tag, snapshotId, retention(timeRetained)).snapshot.id

  def rename(warehouse: Metastore, table: String, tag: String, targetTag: String): Unit =
    Tags.rename(warehouse.loadTable(table), tag, targetTag)

  /** `tags` is one name or several, comma-separated. */
  def delete(warehouse: Metastore, table: String, tags: String): Unit =
    Tags.delete(warehouse.loadTable(table), tags)

  /** Deletes the tags whose retention ran out and, given `olderThan` (a timestamp in `zone`), those
   *  created before it; the names deleted. Tag creation times are local times of the JVM's zone, as in
   *  Paimon's tag files. */
  def expire(warehouse: Metastore, table: String, olderThan: Option[String],
      zone: ZoneId = ZoneId.systemDefault()): Seq[String] = {
    val before = olderThan.map(_.trim).filter(_.nonEmpty).map { text =>
      LocalDateTime.ofInstant(Instant.ofEpochMilli(Snapshots.parseTimestamp(text, "older_than", zone)),
        ZoneId.systemDefault())
    }
    Tags.expire(warehouse.loadTable(table), LocalDateTime.now(), before)
  }

  /** `7 d`, `12 h`, `30 min`: how long a tag is kept; blank or None: for ever. */
  def retention(text: Option[String]): Option[Duration] =
    text.map(_.trim).filter(_.nonEmpty).map { s =>
      OptionKind.DurationKind.parse(s) match {
        case Right(ms) => Duration.ofMillis(ms)
        case Left(why) => throw new BadInputException(s"Invalid time_retained '$s': $why")
      }
    }
}
