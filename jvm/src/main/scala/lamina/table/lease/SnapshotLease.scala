package lamina.table.lease

import com.fasterxml.jackson.databind.ObjectMapper

import lamina.errors.CorruptFileException

/** One `lease/lease-<uuid>-<n>` file: a running reader's claim on snapshot `snapshotId`, valid until
 *  `expireAtMillis` (epoch ms) unless renewed. JSON: `{"snapshotId": 3, "expireAtMillis": 1700000000000,
 *  "holder": "host:pid"}`. A Lamina addition to Paimon's layout, which Paimon's readers and writers
 *  ignore. Invariant: a lease whose time ran out holds nothing (its process died or stopped renewing). */
final case class SnapshotLease(snapshotId: Long, expireAtMillis: Long, holder: String) {
  def isLive(nowMillis: Long): Boolean = expireAtMillis > nowMillis

  def toJson: String = {
    val o = SnapshotLease.Mapper.createObjectNode()
    o.put("snapshotId", snapshotId)
    o.put("expireAtMillis", expireAtMillis)
    o.put("holder", holder)
    SnapshotLease.Mapper.writeValueAsString(o)
  }
}

object SnapshotLease {
  private val Mapper = new ObjectMapper()

  def fromJson(json: String, path: String): SnapshotLease = {
    val n =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "lease JSON", "unparsable text", e.getMessage, e) }
    def long(field: String): Long = Option(n).map(_.get(field)).filter(v => v != null && v.canConvertToLong)
      .map(_.asLong).getOrElse(throw new CorruptFileException(path, 0, s"a number in field '$field'",
          Option(n).map(_.toString).getOrElse("nothing")))
    SnapshotLease(long("snapshotId"), long("expireAtMillis"), Option(n.get("holder")).map(_.asText).getOrElse(""))
  }
}
