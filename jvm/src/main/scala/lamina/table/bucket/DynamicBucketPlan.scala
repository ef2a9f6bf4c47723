package lamina.table.bucket

import lamina.format.Bucket

/** How one write into a dynamic-bucket table assigns buckets, fixed by the driver: the snapshot whose
 *  hash index it starts from (None: an empty table, or an overwrite, which starts afresh), and the
 *  number of assigner groups. A key's group is `abs(hash % groups)`; the write clusters its rows by
 *  partition and group, so one task assigns every new key of a (partition, group), opening only
 *  buckets `b` with `b % groups == group`: no two tasks give one key two buckets or one bucket two
 *  indexes. */
final case class DynamicBucketPlan(snapshotId: Option[Long], groups: Int) {
  require(groups > 0, s"groups must be positive, got $groups")

  /** The group of a key hash: its bucket among `groups` buckets, as the write's clustering computes it. */
  def groupOf(hash: Int): Int = Bucket.bucketOfHash(hash, groups)
}
