package lamina.types

import lamina.errors.BadInputException
import org.apache.spark.sql.{types => st}
import org.scalatest.funsuite.AnyFunSuite

class SparkTypesTest extends AnyFunSuite {

  private def counter(start: Int = 100): () => Int = {
    var next = start
    () => { val id = next; next += 1; id }
  }

  test("Paimon to Spark") {
    val cases: Seq[(DataType, st.DataType)] = Seq(
      BooleanType() -> st.BooleanType, TinyIntType() -> st.ByteType, SmallIntType() -> st.ShortType,
      IntType() -> st.IntegerType, BigIntType() -> st.LongType, FloatType() -> st.FloatType,
      DoubleType() -> st.DoubleType, DecimalType(20, 3) -> st.DecimalType(20, 3),
      CharType(3) -> st.StringType, VarCharType(5) -> st.StringType, VarCharType.string() -> st.StringType,
      BinaryType(2) -> st.BinaryType, VarBinaryType.bytes() -> st.BinaryType, DateType() -> st.DateType,
      TimestampType(3) -> st.TimestampNTZType, LocalZonedTimestampType(6) -> st.TimestampType,
      ArrayType(IntType(false)) -> st.ArrayType(st.IntegerType, containsNull = false),
      MapType(VarCharType.string(false), DoubleType()) -> st.MapType(st.StringType, st.DoubleType, valueContainsNull = true),
      MultisetType(IntType()) -> st.MapType(st.IntegerType, st.IntegerType, valueContainsNull = false))
    for ((p, s) <- cases) assert(SparkTypes.toSpark(p) === s, p.asSQLString)
  }

  test("struct fields carry nullability, field ids, comments and char/varchar lengths") {
    val s = SparkTypes.toSparkStruct(Seq(
        DataField(7, "a", IntType(false), Some("the a")),
        DataField(8, "v", VarCharType(10)),
        DataField(9, "r", RowType(Seq(DataField(10, "x", CharType(2)))))))
    assert(s.fieldNames.toSeq === Seq("a", "v", "r"))
    assert(!s("a").nullable && s("v").nullable)
    assert(s("a").metadata.getLong(SparkTypes.FieldIdKey) === 7L)
    assert(s("a").getComment() === Some("the a"))
    assert(s("v").metadata.getString(SparkTypes.CharVarcharKey) === "varchar(10)")
    assert(!s("a").metadata.contains(SparkTypes.CharVarcharKey))
    val inner = s("r").dataType.asInstanceOf[st.StructType]
    assert(inner("x").metadata.getLong(SparkTypes.FieldIdKey) === 10L)
    assert(inner("x").metadata.getString(SparkTypes.CharVarcharKey) === "char(2)")
  }

  test("Spark to Paimon") {
    val cases: Seq[(st.DataType, DataType)] = Seq(
      st.BooleanType -> BooleanType(), st.ByteType -> TinyIntType(), st.ShortType -> SmallIntType(),
      st.IntegerType -> IntType(), st.LongType -> BigIntType(), st.FloatType -> FloatType(),
      st.DoubleType -> DoubleType(), st.DecimalType(38, 9) -> DecimalType(38, 9),
      st.StringType -> VarCharType.string(), st.CharType(4) -> CharType(4), st.VarcharType(9) -> VarCharType(9),
      st.BinaryType -> VarBinaryType.bytes(), st.DateType -> DateType(),
      st.TimestampType -> LocalZonedTimestampType(6), st.TimestampNTZType -> TimestampType(6),
      st.ArrayType(st.LongType, containsNull = false) -> ArrayType(BigIntType(false)),
      st.MapType(st.StringType, st.IntegerType, valueContainsNull = true) -> MapType(VarCharType.string(false), IntType()))
    for ((s, p) <- cases) {
      assert(SparkTypes.fromSpark(s, nullable = true, counter()) === p, s.sql)
      assert(SparkTypes.fromSpark(s, nullable = false, counter()) === p.withNullable(false), s.sql)
    }
  }

  test("nested struct fields get ids from nextId, a field's type before the field") {
    val s = st.StructType(Seq(
        st.StructField("a", st.IntegerType, nullable = false).withComment("c"),
        st.StructField("b", st.StructType(Seq(st.StructField("x", st.StringType))))))
    val t = SparkTypes.fromSpark(s, nullable = true, counter())
    assert(t === RowType(Seq(
        DataField(100, "a", IntType(false), Some("c")),
        DataField(102, "b", RowType(Seq(DataField(101, "x", VarCharType.string())))))))
  }

  test("round trip Paimon -> Spark -> Paimon for types with a Spark counterpart") {
    val fields = Seq(
      DataField(0, "a", BigIntType(false)), DataField(1, "b", CharType(3)), DataField(2, "c", VarCharType(8)),
      DataField(3, "d", VarCharType.string()), DataField(4, "e", DecimalType(30, 10)),
      DataField(5, "f", LocalZonedTimestampType(6)), DataField(6, "g", TimestampType(6)),
      DataField(7, "h", ArrayType(DateType())), DataField(8, "i", MapType(IntType(false), VarBinaryType.bytes())))
    val spark = SparkTypes.toSparkStruct(fields)
    val back = spark.fields.toSeq.map(f =>
      DataField(f.metadata.getLong(SparkTypes.FieldIdKey).toInt, f.name, SparkTypes.fromSparkField(f, counter())))
    assert(back === fields)
  }

  test("unsupported types are bad input naming the type") {
    val e = intercept[BadInputException](
      SparkTypes.fromSpark(st.CalendarIntervalType, nullable = true, counter()))
    assert(e.getMessage === "Spark type INTERVAL is not supported by Lamina tables")
    val e2 = intercept[BadInputException](SparkTypes.fromSpark(st.VariantType, nullable = true, counter()))
    assert(e2.getMessage === "Spark type VARIANT is not supported by Lamina tables")
    intercept[BadInputException](SparkTypes.fromSpark(st.DayTimeIntervalType(), nullable = true, counter()))
    intercept[BadInputException](SparkTypes.fromSpark(st.StringType("UNICODE_CI"), nullable = true, counter()))
    val e3 = intercept[BadInputException](SparkTypes.toSpark(TimeType(0)))
    assert(e3.getMessage === "Type TIME(0) is not supported in Spark")
  }
}
