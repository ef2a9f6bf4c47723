package lamina.table.sink

import scala.collection.immutable.ArraySeq

/** The bucket counts one write routes rows by, beside the table's `bucket`: `counts`, by serialized
 *  partition, of the partitions with another count ([[lamina.table.scan.BucketCounts.differing]]), and
 *  `default`, the count of the other partitions when it is not the table's (a postpone-bucket table's
 *  partitions first written now). */
final case class WriteBuckets(counts: Map[ArraySeq[Byte], Int] = Map.empty, default: Option[Int] = None)
