package lamina.table.consumer

import com.fasterxml.jackson.databind.ObjectMapper

import lamina.errors.CorruptFileException

/** A consumer's progress, the `consumer/consumer-<id>` file of Paimon's layout: the JSON object
 *  `{"nextSnapshot":N}`, the first snapshot the consumer has not read completely.
 *  Invariant: nextSnapshot >= 1. */
final case class Consumer(nextSnapshot: Long) {
  def toJson: String = Consumer.Mapper.createObjectNode().put("nextSnapshot", nextSnapshot).toString
}

object Consumer {
  private val Mapper = new ObjectMapper()

  /** Parses strictly: a consumer file decides which snapshots expiration keeps. */
  def fromJson(json: String, path: String): Consumer = {
    val n =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "consumer JSON", "unparsable text", e.getMessage, e) }
    val next = Option(n).filter(_.isObject).flatMap(o => Option(o.get("nextSnapshot"))).filter(_.canConvertToLong)
      .getOrElse(throw new CorruptFileException(path, 0, "a JSON object with an integral \"nextSnapshot\"", json.take(80)))
      .asLong()
    if (next < 1) throw new CorruptFileException(path, 0, "a nextSnapshot of at least 1", next.toString)
    Consumer(next)
  }
}
