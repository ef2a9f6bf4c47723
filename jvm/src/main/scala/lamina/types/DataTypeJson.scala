package lamina.types

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode, TextNode}
import lamina.errors.BadInputException

import scala.jdk.CollectionConverters._

/** The type form of Paimon's `schema/schema-N` JSON files.
 *
 *  - atomic types are JSON strings holding [[DataType.asSQLString]], e.g. `"INT NOT NULL"`;
 *  - `{"type":"ARRAY","element":T}`, `{"type":"MULTISET","element":T}`,
 *    `{"type":"MAP","key":K,"value":V}`, `{"type":"ROW","fields":[F...]}`, where "type" gets the
 *    suffix " NOT NULL" for a non-nullable container;
 *  - a field is `{"id":1,"name":"a","type":T,"description":"..."}`, description only when present.
 *
 *  Writing follows Paimon's Java serializer (key order as above, no extra keys). Reading also accepts
 *  the extra `"nullable"` key that pypaimon writes on containers and the `"defaultValue"` key of
 *  fields (ignored: Lamina has no column defaults yet). Malformed input raises [[BadInputException]].
 */
object DataTypeJson {
  private val nodes = JsonNodeFactory.instance

  def toJson(t: DataType): JsonNode = t match {
    case ArrayType(e, n) => container("ARRAY", n).set[ObjectNode]("element", toJson(e))
    case MultisetType(e, n) => container("MULTISET", n).set[ObjectNode]("element", toJson(e))
    case MapType(k, v, n) =>
      val o = container("MAP", n)
      o.set[ObjectNode]("key", toJson(k))
      o.set[ObjectNode]("value", toJson(v))
    case RowType(fields, n) =>
      val o = container("ROW", n)
      val arr = o.putArray("fields")
      fields.foreach(f => arr.add(fieldToJson(f)))
      o
    case atomic => TextNode.valueOf(atomic.asSQLString)
  }

  private def container(name: String, nullable: Boolean): ObjectNode = {
    val o = nodes.objectNode()
    o.put("type", if (nullable) name else name + " NOT NULL")
    o
  }

  def fieldToJson(f: DataField): JsonNode = {
    val o = nodes.objectNode()
    o.put("id", f.id)
    o.put("name", f.name)
    o.set[ObjectNode]("type", toJson(f.dataType))
    f.description.foreach(d => o.put("description", d))
    o
  }

  def fromJson(n: JsonNode): DataType = {
    if (n == null || n.isNull || n.isMissingNode) throw new BadInputException("Missing data type in schema JSON")
    if (n.isTextual) DataTypeParser.parse(n.asText())
    else if (n.isObject) {
      val typeNode = n.get("type")
      if (typeNode == null || !typeNode.isTextual)
        throw new BadInputException(s"Data type JSON object has no string 'type': $n")
      val typeString = typeNode.asText().trim
      val head = typeString.takeWhile(c => Character.isLetter(c) || c == '_').toUpperCase(java.util.Locale.ROOT)
      val nullable = !typeString.toUpperCase(java.util.Locale.ROOT).endsWith("NOT NULL") &&
        Option(n.get("nullable")).forall(x => !x.isBoolean || x.asBoolean())
      head match {
        case "ARRAY" => ArrayType(fromJson(required(n, "element")), nullable)
        case "MULTISET" => MultisetType(fromJson(required(n, "element")), nullable)
        case "MAP" => MapType(fromJson(required(n, "key")), fromJson(required(n, "value")), nullable)
        case "ROW" =>
          val fs = required(n, "fields")
          if (!fs.isArray) throw new BadInputException(s"ROW 'fields' must be an array: $n")
          RowType(fs.elements().asScala.map(fieldFromJson).toVector, nullable)
        case _ =>
          // An atomic type written as an object; Paimon accepts it, so do we.
          DataTypeParser.parse(typeString)
      }
    } else throw new BadInputException(s"Cannot read a data type from JSON $n")
  }

  def fieldFromJson(n: JsonNode): DataField = {
    if (n == null || !n.isObject) throw new BadInputException(s"Data field JSON must be an object: $n")
    val idNode = required(n, "id")
    if (!idNode.canConvertToInt) throw new BadInputException(s"Data field 'id' must be an int: $n")
    val nameNode = required(n, "name")
    if (!nameNode.isTextual) throw new BadInputException(s"Data field 'name' must be a string: $n")
    val desc = Option(n.get("description")).filterNot(_.isNull).map(_.asText())
    DataField(idNode.asInt(), nameNode.asText(), fromJson(required(n, "type")), desc)
  }

  private def required(n: JsonNode, key: String): JsonNode = {
    val v = n.get(key)
    if (v == null || v.isNull) throw new BadInputException(s"Missing '$key' in data type JSON: $n")
    v
  }
}
