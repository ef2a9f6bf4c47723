package lamina.types

import lamina.errors.BadInputException
import org.scalatest.funsuite.AnyFunSuite

class DataTypeParserTest extends AnyFunSuite {

  private val row = RowType(Seq(
      DataField(0, "a", IntType(nullable = false)),
      DataField(1, "b c", VarCharType.string(), Some("it's b")),
      DataField(2, "we`ird", ArrayType(RowType(Seq(DataField(0, "x", DoubleType()))), nullable = false))))

  /** Every type with its exact Paimon string. */
  private val printed: Seq[(DataType, String)] = Seq(
    BooleanType() -> "BOOLEAN",
    TinyIntType() -> "TINYINT",
    SmallIntType() -> "SMALLINT",
    IntType() -> "INT",
    IntType(nullable = false) -> "INT NOT NULL",
    BigIntType() -> "BIGINT",
    FloatType() -> "FLOAT",
    DoubleType(false) -> "DOUBLE NOT NULL",
    DecimalType(10, 2) -> "DECIMAL(10, 2)",
    DecimalType(38, 0, nullable = false) -> "DECIMAL(38, 0) NOT NULL",
    CharType(5) -> "CHAR(5)",
    VarCharType(20) -> "VARCHAR(20)",
    VarCharType(Int.MaxValue) -> "STRING",
    VarCharType(Int.MaxValue, nullable = false) -> "STRING NOT NULL",
    BinaryType(4) -> "BINARY(4)",
    VarBinaryType(9) -> "VARBINARY(9)",
    VarBinaryType(Int.MaxValue) -> "BYTES",
    DateType() -> "DATE",
    TimeType(3) -> "TIME(3)",
    TimestampType(6) -> "TIMESTAMP(6)",
    TimestampType(3, nullable = false) -> "TIMESTAMP(3) NOT NULL",
    LocalZonedTimestampType(6) -> "TIMESTAMP(6) WITH LOCAL TIME ZONE",
    LocalZonedTimestampType(9, nullable = false) -> "TIMESTAMP(9) WITH LOCAL TIME ZONE NOT NULL",
    ArrayType(IntType()) -> "ARRAY<INT>",
    ArrayType(IntType(false), nullable = false) -> "ARRAY<INT NOT NULL> NOT NULL",
    MultisetType(VarCharType.string()) -> "MULTISET<STRING>",
    MapType(VarCharType.string(), IntType()) -> "MAP<STRING, INT>",
    MapType(VarCharType.string(false), MapType(IntType(false), ArrayType(DateType())), nullable = false) ->
      "MAP<STRING NOT NULL, MAP<INT NOT NULL, ARRAY<DATE>>> NOT NULL",
    RowType(Seq(DataField(0, "a", IntType()), DataField(1, "b", VarCharType.string()))) -> "ROW<`a` INT, `b` STRING>",
    row -> "ROW<`a` INT NOT NULL, `b c` STRING 'it''s b', `we``ird` ARRAY<ROW<`x` DOUBLE>> NOT NULL>",
    RowType(Seq.empty, nullable = false) -> "ROW<> NOT NULL",
    VariantType() -> "VARIANT",
    BlobType(false) -> "BLOB NOT NULL")

  for ((t, s) <- printed) {
    test(s"print and parse $s") {
      assert(t.asSQLString === s)
      assert(DataTypeParser.parse(s) === t)
      assert(DataTypeParser.parse(s.toLowerCase) === t || s.contains("`") || s.contains("'"))
    }
  }

  test("aliases and defaults Paimon's parser accepts") {
    val cases = Seq(
      "INTEGER" -> IntType(),
      "integer not null" -> IntType(false),
      "INT NULL" -> IntType(),
      "DEC(5, 1)" -> DecimalType(5, 1),
      "NUMERIC(7)" -> DecimalType(7, 0),
      "DECIMAL" -> DecimalType(10, 0),
      "CHAR" -> CharType(1),
      "VARCHAR" -> VarCharType(1),
      "BINARY" -> BinaryType(1),
      "VARBINARY" -> VarBinaryType(1),
      "DOUBLE PRECISION" -> DoubleType(),
      "TIME" -> TimeType(0),
      "TIMESTAMP" -> TimestampType(6),
      "TIMESTAMP(3) WITHOUT TIME ZONE" -> TimestampType(3),
      "TIMESTAMP WITH LOCAL TIME ZONE" -> LocalZonedTimestampType(6),
      "TIMESTAMP_LTZ(3)" -> LocalZonedTimestampType(3),
      "TIMESTAMP_LTZ" -> LocalZonedTimestampType(6),
      "ROW(a INT, b STRING)" -> RowType(Seq(DataField(0, "a", IntType()), DataField(1, "b", VarCharType.string()))),
      "ROW<a: INT>" -> RowType(Seq(DataField(0, "a", IntType()))),
      "  ARRAY < INT >  " -> ArrayType(IntType()))
    for ((s, t) <- cases) assert(DataTypeParser.parse(s) === t, s)
  }

  test("malformed type strings name the input and position") {
    val e1 = intercept[BadInputException](DataTypeParser.parse("DECIMAL(10, 2"))
    assert(e1.getMessage === "Cannot parse type 'DECIMAL(10, 2' at position 13: expected ')'")
    val e2 = intercept[BadInputException](DataTypeParser.parse("FOO"))
    assert(e2.getMessage === "Cannot parse type 'FOO' at position 0: unknown type FOO")
    val e3 = intercept[BadInputException](DataTypeParser.parse("INT NOT"))
    assert(e3.getMessage === "Cannot parse type 'INT NOT' at position 7: expected NULL")
    val e4 = intercept[BadInputException](DataTypeParser.parse("DECIMAL(40, 2)"))
    assert(e4.getMessage ===
      "Cannot parse type 'DECIMAL(40, 2)' at position 14: DECIMAL precision must be between 1 and 38, got 40")
    val e5 = intercept[BadInputException](DataTypeParser.parse("MAP<INT>"))
    assert(e5.getMessage === "Cannot parse type 'MAP<INT>' at position 7: expected ','")
    val e6 = intercept[BadInputException](DataTypeParser.parse("INT INT"))
    assert(e6.getMessage === "Cannot parse type 'INT INT' at position 4: unexpected trailing input")
    intercept[BadInputException](DataTypeParser.parse(""))
    intercept[BadInputException](DataTypeParser.parse("ROW<`a INT>"))
    intercept[BadInputException](DataTypeParser.parse("VARCHAR(99999999999)"))
  }

  test("withNullable keeps everything else") {
    for ((t, _) <- printed) {
      assert(t.withNullable(false).nullable === false)
      assert(t.withNullable(true).nullable === true)
      assert(t.withNullable(t.nullable) === t)
    }
  }
}
