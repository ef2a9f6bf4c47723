package lamina.table.schema

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, ObjectNode}
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables
import lamina.types._

class TableSchemaTest extends AnyFunSuite {
  private val mapper = new ObjectMapper()

  private val nested: TableSchema = TableSchema(
    id = 7,
    fields = Seq(
      DataField(0, "id", BigIntType(nullable = false), Some("the key")),
      DataField(1, "dt", DateType(nullable = false)),
      DataField(2, "price", DecimalType(38, 10)),
      DataField(3, "tags", ArrayType(VarCharType.string(nullable = false))),
      DataField(4, "attrs",
        MapType(VarCharType(20, nullable = false),
          RowType(Seq(DataField(5, "n", IntType()), DataField(6, "b", VarBinaryType.bytes()))))),
      DataField(7, "point",
        RowType(
          Seq(
            DataField(8, "x", DoubleType(), Some("east")),
            DataField(9, "inner", RowType(Seq(DataField(10, "deep", TimestampType(3))), nullable = false))),
          nullable = false), Some("it's \"quoted\"")),
      DataField(11, "ltz", LocalZonedTimestampType(6)),
      DataField(12, "c", CharType(3))),
    highestFieldId = 12,
    partitionKeys = Seq("dt"),
    primaryKeys = Seq("id", "dt"),
    options = Map("bucket" -> "4", "file.format" -> "orc", "fields.price.aggregate-function" -> "sum"),
    comment = Some("a comment with \n newline and ünïcode"),
    timeMillis = 1795306646774L)

  test("JSON round trip keeps nested types, ids, nullability, options and comments") {
    val back = TableSchema.fromJson(nested.toJson, "mem")
    assert(back === nested)
    assert(TableSchema.fromJson(back.toJson, "mem").toJson === nested.toJson)
  }

  test("JSON round trip without a comment and without keys") {
    val plain = nested.copy(comment = None, partitionKeys = Nil, primaryKeys = Nil, options = Map.empty)
    val json = plain.toJson
    assert(!mapper.readTree(json).has("comment"))
    assert(TableSchema.fromJson(json, "mem") === plain)
  }

  test("a null comment reads as no comment") {
    val o = mapper.readTree(nested.toJson).asInstanceOf[ObjectNode]
    o.putNull("comment")
    assert(TableSchema.fromJson(o.toString, "mem").comment === None)
  }

  test("highestId looks into rows inside maps and arrays") {
    assert(TableSchema.highestId(nested.fields) === 12)
    assert(TableSchema.highestId(Seq(DataField(1, "a",
          ArrayType(MapType(IntType(),
              RowType(Seq(DataField(40, "z", IntType())))))))) === 40)
    assert(TableSchema.highestId(Nil) === -1)
  }

  test("derived keys: trimmed primary key, bucket keys, buckets") {
    assert(nested.trimmedPrimaryKeys === Seq("id"))
    assert(nested.bucketKeys === Seq("id"))
    assert(nested.numBuckets === 4)
    assert(nested.partitionTypes === Seq(DateType(nullable = false)))
    val explicit = nested.copy(options = nested.options + ("bucket-key" -> "price, c"))
    assert(explicit.bucketKeys === Seq("price", "c"))
  }

  test("reads the schema file pypaimon wrote, nested types and all") {
    val text = TestTables.readResource("/fixtures/pypaimon_schema/schema-0")
    val s = TableSchema.fromJson(text, "schema-0")
    assert(s.id === 0)
    assert(s.version === 3)
    assert(s.fields === Seq(
      DataField(0, "id", BigIntType(nullable = false), Some("the key")),
      DataField(1, "dt", DateType(nullable = false)),
      DataField(2, "amount", DecimalType(12, 3)),
      DataField(3, "tags", ArrayType(VarCharType.string())),
      DataField(4, "attrs",
        MapType(VarCharType.string(nullable = false),
          RowType(Seq(DataField(5, "n", IntType()), DataField(6, "s", VarCharType(10)))))),
      DataField(7, "point",
        RowType(Seq(
            DataField(8, "x", DoubleType(), Some("east")),
            DataField(9, "y", DoubleType(), Some("north"))), nullable = false), Some("a point"))))
    assert(s.highestFieldId === 9)
    assert(s.partitionKeys === Seq("dt"))
    assert(s.primaryKeys === Seq("id", "dt"))
    assert(s.options === Map("bucket" -> "3", "file.format" -> "parquet", "metadata.stats-mode" -> "full"))
    assert(s.comment === Some("nested types"))
    assert(s.timeMillis > 0)
  }

  /** pypaimon also writes `"nullable"` inside ARRAY, MAP and ROW types; Paimon's Java writer does
   *  not (the type string's NOT NULL carries it), and neither does Lamina. Checks that the two agree
   *  and removes the key. */
  private def withoutNullableKeys(n: JsonNode): JsonNode = n match {
    case o: ObjectNode =>
      if (o.has("nullable") && o.has("type") && o.get("type").isTextual) {
        assert(o.get("nullable").asBoolean === !o.get("type").asText.endsWith("NOT NULL"), o.toString)
        o.remove("nullable")
      }
      o.fields().asScala.foreach(e => withoutNullableKeys(e.getValue))
      o
    case a: ArrayNode => a.elements().asScala.foreach(withoutNullableKeys); a
    case other => other
  }

  test("writes back the same JSON tree pypaimon wrote") {
    for (name <- Seq("/fixtures/pypaimon_schema/schema-0", "/fixtures/pypaimon_table/schema/schema-0",
        "/golden/schema/schema-0")) {
      val text = TestTables.readResource(name)
      val ours = TableSchema.fromJson(text, name).toJson
      assert(mapper.readTree(ours) === withoutNullableKeys(mapper.readTree(text)), name)
    }
  }

  test("older versions get the defaults their writers assumed") {
    val v3 = mapper.readTree(nested.copy(options = Map.empty).toJson).asInstanceOf[ObjectNode]
    v3.put("version", 1)
    val v1 = TableSchema.fromJson(v3.toString, "mem")
    assert(v1.options === Map("bucket" -> "1", "file.format" -> "orc"))
    v3.put("version", 2)
    assert(TableSchema.fromJson(v3.toString, "mem").options === Map("file.format" -> "orc"))
    v3.remove("version")
    assert(TableSchema.fromJson(v3.toString, "mem").version === 1)
  }

  test("missing required fields name the file and the field") {
    for (field <- Seq("id", "fields", "highestFieldId")) {
      val o = mapper.readTree(nested.toJson).asInstanceOf[ObjectNode]
      o.remove(field)
      val e = intercept[CorruptFileException](TableSchema.fromJson(o.toString, "/tbl/schema/schema-7"))
      assert(e.getMessage === s"Corrupt file /tbl/schema/schema-7 at offset 0: expected field '$field', found missing")
      assert(e.path === "/tbl/schema/schema-7")
    }
  }

  test("a stored option with a value the registry refuses is corruption naming the option") {
    for ((key, value) <- Seq("merge-engine" -> "dedup", "write-only" -> "maybe", "lookup.local-file-type" -> "btree")) {
      val json = nested.copy(options = nested.options + (key -> value)).toJson
      val e = intercept[CorruptFileException](TableSchema.fromJson(json, "/tbl/schema/schema-3"))
      assert(e.getMessage.startsWith(
          s"Corrupt file /tbl/schema/schema-3 at offset 0: expected a valid value of option '$key', found '$value'"), key)
    }
  }

  test("unparsable text and unknown types are corruption naming the file") {
    val e = intercept[CorruptFileException](TableSchema.fromJson("{\"id\": 1,", "/tbl/schema/schema-1"))
    assert(e.getMessage.startsWith(
        "Corrupt file /tbl/schema/schema-1 at offset 0: expected schema JSON, found unparsable text ("))
    val badType = nested.toJson.replace("\"DECIMAL(38, 10)\"", "\"DECIMAL(FOO)\"")
    assert(badType !== nested.toJson)
    val e2 = intercept[CorruptFileException](TableSchema.fromJson(badType, "/tbl/schema/schema-2"))
    assert(e2.getMessage.startsWith("Corrupt file /tbl/schema/schema-2 at offset 0: expected valid field definitions, found "))
    assert(e2.getCause != null)
  }
}
