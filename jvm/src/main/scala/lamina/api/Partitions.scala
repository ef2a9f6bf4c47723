package lamina.api

import java.time.LocalDateTime

import lamina.errors.BadInputException
import lamina.table.catalog.Metastore
import lamina.table.compact.CompactRequest
import lamina.table.lifecycle.{PartitionExpiration, PartitionMarkDone}
import lamina.table.options.{CoreOptions, OptionKind, PartitionExpireStrategy}

/** Partition expiration and marking for `CALL sys.expire_partitions` and `sys.mark_partition_done`: plain values in (a `db.t` name, a duration
 *  as text such as `7 d`, formatter and pattern text, a strategy name), the dropped partitions out as
 *  Paimon prints them (`dt=2024-01-01, hr=12`). */
object Partitions {

  /** Each argument None takes the table's option; an expiration time is needed from one or the other. */
  def expire(warehouse: Metastore, table: String, expirationTime: Option[String], timestampFormatter: Option[String],
      timestampPattern: Option[String], expireStrategy: Option[String], maxExpires: Option[Int],
      now: LocalDateTime = LocalDateTime.now()): Seq[String] = {
    val t = warehouse.loadTable(table)
    val expiration = expirationTime.map(_.trim).filter(_.nonEmpty).map { text =>
      OptionKind.DurationKind.parse(text) match {
        case Right(ms) => ms
        case Left(why) => throw new BadInputException(s"Invalid expiration_time '$text': $why")
      }
    }.orElse(CoreOptions.PartitionExpirationTime.get(t.options)).getOrElse(
      throw new BadInputException(s"Argument 'expiration_time' must be given: table ${t.name} has no " +
        s"'${CoreOptions.PartitionExpirationTime.key}' option"))
    val strategy = expireStrategy.map(_.trim).filter(_.nonEmpty).map { s =>
      PartitionExpireStrategy.All.find(_.name.equalsIgnoreCase(s)).getOrElse(throw new BadInputException(
          s"Invalid expire_strategy '$s': expected one of ${PartitionExpireStrategy.All.map(_.name).mkString(", ")}"))
    }
    maxExpires.filter(_ < 1).foreach(m => throw new BadInputException(s"max_expires must be at least 1, got $m"))
    def text(o: Option[String]) = o.map(_.trim).filter(_.nonEmpty)
    PartitionExpiration.of(t, strategy, text(timestampFormatter), text(timestampPattern), maxExpires)
      .expire(now, expiration).map(_.map { case (k, v) => s"$k=$v" }.mkString(", "))
  }

  /** Marks the partitions `partitions` (`k=v[,k2=v2][;k=v...]`) of `table` done; their directories. */
  def markDone(warehouse: Metastore, table: String, partitions: String): Seq[String] =
    PartitionMarkDone.mark(warehouse.loadTable(table), CompactRequest.parsePartitions(partitions))
}
