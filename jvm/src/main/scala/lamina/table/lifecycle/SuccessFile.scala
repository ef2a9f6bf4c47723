package lamina.table.lifecycle

import com.fasterxml.jackson.databind.ObjectMapper

import lamina.errors.CorruptFileException

/** A partition's `_SUCCESS` file (Paimon's `success-file` mark-done action): the JSON object
 *  `{"creationTime":ms,"modificationTime":ms}`, when the partition was first and last marked done.
 *  Invariant: creationTime <= modificationTime. */
final case class SuccessFile(creationTime: Long, modificationTime: Long) {
  def toJson: String =
    SuccessFile.Mapper.createObjectNode().put("creationTime", creationTime).put("modificationTime", modificationTime)
      .toString

  /** Marked done again at `now`. */
  def touched(now: Long): SuccessFile = copy(modificationTime = math.max(now, creationTime))
}

object SuccessFile {
  val Name = "_SUCCESS"
  private val Mapper = new ObjectMapper()

  /** Parses strictly: a damaged file is reported, not replaced by a new creation time. */
  def fromJson(json: String, path: String): SuccessFile = {
    def field(name: String, n: com.fasterxml.jackson.databind.JsonNode): Long =
      Option(n.get(name)).filter(_.canConvertToLong).map(_.asLong()).getOrElse(
        throw new CorruptFileException(path, 0, s"""a JSON object with an integral "$name"""", json.take(80)))
    val n =
      try Mapper.readTree(json)
      catch {
        case e: Exception => throw new CorruptFileException(path, 0, "success file JSON", "unparsable text", e.getMessage, e)
      }
    if (n == null || !n.isObject) throw new CorruptFileException(path, 0, "a JSON object", json.take(80))
    SuccessFile(field("creationTime", n), field("modificationTime", n))
  }
}
