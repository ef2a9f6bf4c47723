package lamina.table.bucket

import lamina.table.scan.DataSplit

/** How one write into a cross-partition upsert table (a primary key without every partition column,
 *  `bucket` = -1) places its keys, fixed by the driver: the snapshot whose live keys the key index
 *  starts from (None: an empty table or a whole-table overwrite), the number of assigner groups, and
 *  where the bootstrap scan left each group's share of that snapshot's live keys (those of the buckets
 *  `cross-partition-upsert.index-ttl` keeps; None: no bucket to read). A
 *  key's group is `abs(hash % groups)` of its bucket-key hash; the write clusters rows by group, so one
 *  task holds the index of the group's keys and places each of them, opening only buckets `b` with
 *  `b % groups == group` in any partition: no two tasks give one key two places or open one bucket. */
final case class CrossPartitionPlan(snapshotId: Option[Long], groups: Int, shares: Option[KeyIndexShares]) {
  require(groups > 0, s"groups must be positive, got $groups")
}

object CrossPartitionPlan {

  /** The splits of a bootstrap under an index TTL, as Paimon keeps them: a bucket none of whose files
   *  was written within `ttlMillis` of `now` is left out, its keys forgotten. */
  def withinTtl(splits: Seq[DataSplit], ttlMillis: Option[Long], now: Long): Seq[DataSplit] = ttlMillis match {
    case None => splits
    case Some(ttl) => splits.filter(_.files.exists(f => f.creationTimeMillis.forall(t => now <= t + ttl)))
  }
}
