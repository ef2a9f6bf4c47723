package lamina.table.options

/** How partition expiration (table option [[CoreOptions.PartitionExpirationStrategy]], Paimon's values)
 *  dates a partition: `values-time` by the time its values spell (`partition.timestamp-pattern` and
 *  `partition.timestamp-formatter`), `update-time` by the creation time of its newest data file. */
sealed abstract class PartitionExpireStrategy(name: String) extends EnumValue(name)

object PartitionExpireStrategy {
  case object ValuesTime extends PartitionExpireStrategy("values-time")
  case object UpdateTime extends PartitionExpireStrategy("update-time")

  val All: Seq[PartitionExpireStrategy] = Seq(ValuesTime, UpdateTime)
}
