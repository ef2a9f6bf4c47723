package lamina.types

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import lamina.errors.BadInputException
import org.scalatest.funsuite.AnyFunSuite

import scala.io.Source
import scala.jdk.CollectionConverters._

class DataTypeJsonTest extends AnyFunSuite {
  private val mapper = new ObjectMapper()

  /** The schema file pypaimon's filesystem catalog wrote (tests/fixtures/gen_binary_rows.py). */
  private lazy val schemaJson = {
    val src = Source.fromResource("golden/schema/schema-0", getClass.getClassLoader)(scala.io.Codec.UTF8)
    try mapper.readTree(src.mkString)
    finally src.close()
  }

  /** pypaimon's JSON minus the "nullable" keys it adds to containers: Paimon's Java form. */
  private def withoutNullableKeys(n: com.fasterxml.jackson.databind.JsonNode): com.fasterxml.jackson.databind.JsonNode = {
    val c = n.deepCopy[com.fasterxml.jackson.databind.JsonNode]()
    def strip(x: com.fasterxml.jackson.databind.JsonNode): Unit = x match {
      case o: ObjectNode => o.remove("nullable"); o.elements().asScala.foreach(strip)
      case a if a.isArray => a.elements().asScala.foreach(strip)
      case _ =>
    }
    strip(c)
    c
  }

  test("reads every field of a pypaimon schema file") {
    val fields = schemaJson.get("fields").elements().asScala.map(DataTypeJson.fieldFromJson).toIndexedSeq
    assert(fields.map(_.name) === Seq("id", "b", "t", "s", "i", "f", "d", "dec", "dec_wide", "c", "vc", "str", "bin",
      "vbin", "bytes", "dt", "ts", "ts3", "ltz", "arr", "m", "r"))
    assert(fields.head === DataField(0, "id", BigIntType(false), Some("the key")))
    assert(fields(8).dataType === DecimalType(38, 18, nullable = false))
    assert(fields(9).dataType === CharType(5))
    assert(fields(11) === DataField(11, "str", VarCharType.string(), Some("it's a comment")))
    assert(fields(13).dataType === VarBinaryType(9))
    assert(fields(18).dataType === LocalZonedTimestampType(6))
    assert(fields(19).dataType === ArrayType(IntType(false)))
    assert(fields(20).dataType === MapType(VarCharType.string(false), DoubleType(), nullable = false))
    assert(fields(21).dataType === RowType(Seq(
        DataField(22, "x", IntType()),
        DataField(23, "y", ArrayType(RowType(Seq(DataField(24, "z", VarCharType.string()))), nullable = false)))))
  }

  test("writes each field exactly as the schema file has it, without pypaimon's extra nullable keys") {
    for (n <- schemaJson.get("fields").elements().asScala) {
      val f = DataTypeJson.fieldFromJson(n)
      assert(DataTypeJson.fieldToJson(f) === withoutNullableKeys(n), f.name)
      assert(DataTypeJson.fieldFromJson(DataTypeJson.fieldToJson(f)) === f)
      assert(DataTypeJson.fromJson(DataTypeJson.toJson(f.dataType)) === f.dataType)
    }
  }

  test("JSON shape of containers and atomic types") {
    val t = RowType(Seq(DataField(3, "a", ArrayType(IntType(), nullable = false), Some("d"))), nullable = false)
    assert(mapper.writeValueAsString(DataTypeJson.toJson(t)) ===
      """{"type":"ROW NOT NULL","fields":[{"id":3,"name":"a","type":{"type":"ARRAY NOT NULL","element":"INT"},"description":"d"}]}""")
    assert(mapper.writeValueAsString(DataTypeJson.toJson(MultisetType(DateType()))) ===
      """{"type":"MULTISET","element":"DATE"}""")
    assert(mapper.writeValueAsString(DataTypeJson.toJson(DecimalType(5, 2, nullable = false))) === "\"DECIMAL(5, 2) NOT NULL\"")
  }

  test("malformed JSON types are bad input") {
    val e = intercept[BadInputException](DataTypeJson.fromJson(mapper.readTree("""{"element":"INT"}""")))
    assert(e.getMessage === """Data type JSON object has no string 'type': {"element":"INT"}""")
    val e2 = intercept[BadInputException](DataTypeJson.fromJson(mapper.readTree("""{"type":"ARRAY"}""")))
    assert(e2.getMessage === """Missing 'element' in data type JSON: {"type":"ARRAY"}""")
    intercept[BadInputException](DataTypeJson.fieldFromJson(mapper.readTree("""{"id":"x","name":"a","type":"INT"}""")))
    intercept[BadInputException](DataTypeJson.fromJson(mapper.readTree("42")))
  }
}
