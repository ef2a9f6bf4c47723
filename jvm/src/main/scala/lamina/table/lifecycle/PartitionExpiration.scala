package lamina.table.lifecycle

import java.nio.ByteBuffer
import java.time.{Instant, LocalDateTime, ZoneId}
import java.time.format.DateTimeParseException
import java.util.concurrent.ConcurrentHashMap

import org.slf4j.LoggerFactory

import lamina.errors.BadInputException
import lamina.table.{FileStoreTable, PartitionValues}
import lamina.table.commit.{CommitOperation, FileStoreCommit}
import lamina.table.options.{CoreOptions, PartitionExpireStrategy}
import lamina.table.scan.FileStoreScan

/** Drops the partitions of one table that are older than an expiration time, as Paimon's partition
 *  expiration does: one OVERWRITE snapshot removes every live file of the expired partitions (their
 *  files then go with snapshot expiration, like any removed file). A partition is dated by its values
 *  ([[PartitionTimeExtractor]]; a partition whose values spell no time, or hold a null, is never
 *  expired, as in Paimon) or by the creation time of its newest file. Times are the JVM's local time,
 *  as Paimon's. */
final class PartitionExpiration(table: FileStoreTable, strategy: PartitionExpireStrategy,
    extractor: PartitionTimeExtractor, maxExpires: Int) {
  import PartitionExpiration._

  if (table.schema.partitionKeys.isEmpty)
    throw new BadInputException(s"Table ${table.name} has no partitions to expire")

  /** The live partitions dated before `before`, oldest first, at most `maxExpires`: (serialized
   *  partition, its values as `key=value` text). */
  def expired(before: LocalDateTime): Seq[(ByteBuffer, Seq[(String, String)])] = {
    val latest = table.snapshotManager.latest().getOrElse(return Seq.empty)
    val keys = table.schema.partitionKeys
    val types = table.schema.partitionTypes
    val store = table.manifestStore
    val byPartition = new FileStoreScan(table, latest).liveEntries().groupBy(e => ByteBuffer.wrap(e.partition))
    byPartition.toSeq.flatMap { case (bytes, entries) =>
      val row = store.decodePartition(entries.head.partition)
      val values = keys.indices.map(i => PartitionValues.toPathString(row, i, types(i)))
      val time = strategy match {
        case PartitionExpireStrategy.ValuesTime =>
          if (values.contains(null)) None
          else
            try Some(extractor.extract(keys, values))
            catch {
              case _: DateTimeParseException | _: java.time.DateTimeException =>
                log.warn(s"Partition ${keys.zip(values).map { case (k, v) => s"$k=$v" }.mkString(", ")} of table " +
                  s"${table.name} spells no time; it is not expired")
                None
            }
        case PartitionExpireStrategy.UpdateTime =>
          entries.flatMap(_.file.creationTimeMillis).maxOption.map(ms =>
            LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneId.systemDefault()))
      }
      time.filter(_.isBefore(before)).map(t => (t, bytes, keys.zip(values.map(v => Option(v).getOrElse("null")))))
    }.sortBy(x => (x._1, x._3.map(_._2).mkString("/"))).take(maxExpires).map(x => (x._2, x._3))
  }

  /** Drops the partitions dated before `now` minus `expirationMillis`; their `key=value` texts. */
  def expire(now: LocalDateTime, expirationMillis: Long): Seq[Seq[(String, String)]] = {
    val doomed = expired(now.minus(java.time.Duration.ofMillis(expirationMillis)))
    if (doomed.nonEmpty)
      new FileStoreCommit(table, java.util.UUID.randomUUID().toString, CommitOperation.ExpirePartitions.properties)
        .overwritePartitions(Seq.empty, doomed.map(_._1).toSet)
    doomed.map(_._2)
  }
}

object PartitionExpiration {
  private val log = LoggerFactory.getLogger(getClass)

  /** When this JVM last looked for expired partitions of a table (its branch directory). */
  private val lastCheck = new ConcurrentHashMap[String, java.lang.Long]()

  /** With the table's options, each given argument replacing its option. */
  def of(table: FileStoreTable, strategy: Option[PartitionExpireStrategy] = None, formatter: Option[String] = None,
      pattern: Option[String] = None, maxExpires: Option[Int] = None): PartitionExpiration = {
    val o = table.options
    new PartitionExpiration(table, strategy.getOrElse(CoreOptions.PartitionExpirationStrategy.getOrDefault(o)),
      PartitionTimeExtractor(pattern.orElse(CoreOptions.PartitionTimestampPattern.get(o)),
        formatter.orElse(CoreOptions.PartitionTimestampFormatter.get(o))),
      maxExpires.getOrElse(CoreOptions.PartitionExpirationMaxNum.getOrDefault(o)))
  }

  /** After a commit: when `partition.expiration-time` is set and `partition.expiration-check-interval`
   *  has passed since this JVM last looked (or it never did), drops the expired partitions. */
  def afterCommit(table: FileStoreTable, nowMillis: Long = System.currentTimeMillis()): Unit = {
    val o = table.options
    val expiration = CoreOptions.PartitionExpirationTime.get(o).getOrElse(return
    )
    if (table.schema.partitionKeys.isEmpty) return
    val key = table.branchPath.toString
    val interval = CoreOptions.PartitionExpirationCheckInterval.getOrDefault(o)
    val last = Option(lastCheck.get(key)).map(_.longValue)
    if (last.exists(l => interval > 0 && nowMillis < l + interval)) return
    lastCheck.put(key, nowMillis)
    of(table).expire(LocalDateTime.ofInstant(Instant.ofEpochMilli(nowMillis), ZoneId.systemDefault()), expiration)
  }
}
