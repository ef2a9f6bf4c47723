package lamina.table

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode

import lamina.errors.CorruptFileException
import lamina.io.PathNames
import lamina.table.options.Levenshtein

/** Typed access to the fields of a metadata JSON object (snapshot, schema) that fails, naming the
 *  file and the field, where Jackson would quietly answer 0 or "" (a number read from a string, a
 *  missing field, an unknown one). */
final class StrictJson(node: JsonNode, path: String, what: String) {
  private def corrupt(expected: String, actual: String) = new CorruptFileException(path, 0, expected, actual)

  /** Fields this reader does not know are skipped (newer writers add some), except a name one or two
   *  edits from a known field: that is a known field whose name a damaged byte changed, and reading
   *  on would take the field as missing. */
  def refuseNearMisses(known: Set[String]): Unit =
    node.fieldNames().asScala.filterNot(known.contains).foreach { k =>
      known.find(f => Levenshtein.distance(k, f) <= 2).foreach(f =>
        throw corrupt(s"field names of a $what", s"'$k' (a damaged '$f'?)"))
    }

  private def present(k: String): Option[JsonNode] = Option(node.get(k)).filterNot(_.isNull)

  private def required(k: String): JsonNode = present(k).getOrElse(throw corrupt(s"field '$k'", "missing"))

  private def integral(k: String, v: JsonNode): JsonNode =
    if (v.isIntegralNumber) v else throw corrupt(s"field '$k' to be an integer", v.toString)

  def long(k: String): Long = integral(k, required(k)).asLong
  def optLong(k: String): Option[Long] = present(k).map(v => integral(k, v).asLong)

  def int(k: String): Int = {
    val v = integral(k, required(k))
    if (v.canConvertToInt) v.asInt else throw corrupt(s"field '$k' to be a 32-bit integer", v.toString)
  }
  def optInt(k: String): Option[Int] = present(k).map(_ => int(k))

  def text(k: String): String = {
    val v = required(k)
    if (v.isTextual) v.asText else throw corrupt(s"field '$k' to be a string", v.toString)
  }
  def optText(k: String): Option[String] = present(k).map(_ => text(k))

  /** A string naming a file beside this one: one non-empty path segment. */
  /** A file name the field holds: one path segment ([[PathNames.whyNotSegment]]). */
  def fileName(k: String): String = {
    val v = text(k)
    PathNames.whyNotSegment(v).foreach(_ => throw corrupt(s"field '$k' to be a file name", s"'${PathNames.printable(v)}'"))
    v
  }

  def optFileName(k: String): Option[String] = present(k).map(_ => fileName(k))

  def array(k: String): Seq[JsonNode] = {
    val v = required(k)
    if (v.isArray) v.elements().asScala.toSeq else throw corrupt(s"field '$k' to be an array", v.getNodeType.toString)
  }

  def strings(k: String): Seq[String] = array(k).map(e =>
    if (e.isTextual) e.asText else throw corrupt(s"field '$k' to hold strings", e.toString))

  def obj(k: String): JsonNode = {
    val v = required(k)
    if (v.isObject) v else throw corrupt(s"field '$k' to be an object", v.getNodeType.toString)
  }
}
