package lamina.mergetree.function

import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.types.{Decimal => SparkDecimal}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types._

class FieldAggregatorTest extends AnyFunSuite {
  private def agg(fn: String, t: DataType, options: Map[String, String] = Map.empty): FieldAggregator =
    FieldAggregator.create(fn, DataField(1, "f", t), options, "db.t")

  /** Feeds ("+", v) or ("-", v) steps from a NULL accumulator. */
  private def fold(a: FieldAggregator, steps: Seq[(String, Any)]): Any = {
    a.reset()
    steps.foldLeft(null: Any) { case (acc, (op, v)) => if (op == "+") a.agg(acc, v) else a.retract(acc, v) }
  }

  private def str(s: String) = UTF8String.fromString(s)
  private def dec(s: String) = SparkDecimal(new java.math.BigDecimal(s))
  private def arr(vs: Any*): ArrayData = new GenericArrayData(vs.toArray)
  private def map(kvs: (Any, Any)*): MapData =
    new ArrayBasedMapData(new GenericArrayData(kvs.map(_._1).toArray), new GenericArrayData(kvs.map(_._2).toArray))
  private def arrValues(a: Any): Seq[Any] =
    if (a == null) null
    else {
      val d = a.asInstanceOf[ArrayData]; (0 until d.numElements()).map(i => d.get(i, org.apache.spark.sql.types.IntegerType))
    }
  private def mapValues(m: Any): Seq[(Any, Any)] = {
    val d = m.asInstanceOf[MapData]
    (0 until d.numElements()).map(i =>
      (d.keyArray().getInt(i), if (d.valueArray().isNullAt(i)) null else d.valueArray().getUTF8String(i).toString))
  }

  private val P = "+"
  private val R = "-"

  /** A nested row type (k INT, v STRING) and BYTES. */
  private val Nested = RowType(Seq(DataField(10, "k", IntType()), DataField(11, "v", VarCharType(VarCharType.MaxLength))))
  private val Bytes = VarBinaryType(VarBinaryType.MaxLength)

  // (name, function, type, steps, expected)
  private val scalarCases: Seq[(String, String, DataType, Seq[(String, Any)], Any)] = Seq(
    ("sum int", "sum", IntType(), Seq(P -> 1, P -> 2, P -> 3), 6),
    ("sum skips nulls", "sum", IntType(), Seq(P -> null, P -> 2, P -> null), 2),
    ("sum of only nulls is null", "sum", BigIntType(), Seq(P -> null, P -> null), null),
    ("sum retract subtracts", "sum", BigIntType(), Seq(P -> 10L, R -> 3L), 7L),
    ("sum retract from null negates", "sum", IntType(), Seq(R -> 3), -3),
    ("sum retract of null is a no-op", "sum", IntType(), Seq(P -> 3, R -> null), 3),
    ("sum tinyint wraps", "sum", TinyIntType(), Seq(P -> 127.toByte, P -> 1.toByte), -128.toByte),
    ("sum smallint", "sum", SmallIntType(), Seq(P -> 1.toShort, P -> 2.toShort), 3.toShort),
    ("sum double", "sum", DoubleType(), Seq(P -> 1.5, P -> 2.25), 3.75),
    ("sum float", "sum", FloatType(), Seq(P -> 1.5f, R -> 0.5f), 1.0f),
    ("sum decimal", "sum", DecimalType(5, 2), Seq(P -> dec("1.25"), P -> dec("2.50")), dec("3.75")),
    ("sum decimal overflow is null", "sum", DecimalType(3, 1), Seq(P -> dec("60.0"), P -> dec("50.0")), null),
    ("product", "product", IntType(), Seq(P -> 2, P -> null, P -> 3), 6),
    ("product retract divides", "product", BigIntType(), Seq(P -> 6L, P -> 4L, R -> 3L), 8L),
    ("product retract by zero is null", "product", IntType(), Seq(P -> 6, R -> 0), null),
    ("product decimal", "product", DecimalType(6, 2), Seq(P -> dec("1.50"), P -> dec("2.00")), dec("3.00")),
    ("max", "max", IntType(), Seq(P -> 3, P -> null, P -> 7, P -> 5), 7),
    ("min", "min", IntType(), Seq(P -> 3, P -> null, P -> 1, P -> 5), 1),
    ("max string", "max", VarCharType(VarCharType.MaxLength), Seq(P -> str("b"), P -> str("a")), str("b")),
    ("min date", "min", DateType(), Seq(P -> 20, P -> 10), 10),
    ("max timestamp", "max", TimestampType(), Seq(P -> 5L, P -> 9L), 9L),
    ("max decimal", "max", DecimalType(5, 2), Seq(P -> dec("1.25"), P -> dec("1.50")), dec("1.50")),
    ("last_value takes nulls", "last_value", IntType(), Seq(P -> 1, P -> null), null),
    ("last_value retract clears", "last_value", IntType(), Seq(P -> 1, R -> 1), null),
    ("last_non_null_value", "last_non_null_value", IntType(), Seq(P -> 1, P -> null), 1),
    ("last_non_null_value retract clears", "last_non_null_value", IntType(), Seq(P -> 1, R -> 1), null),
    ("last_non_null_value retract of null keeps", "last_non_null_value", IntType(), Seq(P -> 1, R -> null), 1),
    ("first_value keeps a first null", "first_value", IntType(), Seq(P -> null, P -> 2), null),
    ("first_value", "first_value", IntType(), Seq(P -> 1, P -> 2), 1),
    ("first_non_null_value", "first_non_null_value", IntType(), Seq(P -> null, P -> 2, P -> 3), 2),
    ("bool_and", "bool_and", BooleanType(), Seq(P -> true, P -> null, P -> false), false),
    ("bool_and all true", "bool_and", BooleanType(), Seq(P -> true, P -> true), true),
    ("bool_or", "bool_or", BooleanType(), Seq(P -> false, P -> null, P -> true), true),
    ("bool_or only nulls", "bool_or", BooleanType(), Seq(P -> null), null),
    ("listagg", "listagg", VarCharType(VarCharType.MaxLength), Seq(P -> str("a"), P -> null, P -> str("b")), str("a,b")))

  scalarCases.foreach { case (name, fn, t, steps, expected) =>
    test(s"$name") { assert(fold(agg(fn, t), steps) == expected) }
  }

  test("first_value starts over after reset") {
    val a = agg("first_value", IntType())
    assert(fold(a, Seq(P -> 1, P -> 2)) == 1)
    assert(fold(a, Seq(P -> 5, P -> 2)) == 5)
  }

  test("listagg delimiter and distinct") {
    val s = VarCharType(VarCharType.MaxLength)
    assert(fold(agg("listagg", s, Map("fields.f.list-agg-delimiter" -> ";")), Seq(P -> str("a"), P -> str("b"))) == str("a;b"))
    assert(fold(agg("listagg", s, Map("fields.f.distinct" -> "true")), Seq(P -> str("a"), P -> str("b"), P -> str("a"))) == str(
      "a,b"))
  }

  test("collect concatenates arrays, skips null arrays, keeps duplicates") {
    val a = agg("collect", ArrayType(IntType()))
    assert(arrValues(fold(a, Seq(P -> arr(1, 2), P -> null, P -> arr(2, 3)))) == Seq(1, 2, 2, 3))
    assert(fold(a, Seq(P -> null)) == null)
  }

  test("collect distinct keeps each element once") {
    val a = agg("collect", ArrayType(IntType()), Map("fields.f.distinct" -> "true"))
    assert(arrValues(fold(a, Seq(P -> arr(1, 2, 1), P -> arr(2, 3)))) == Seq(1, 2, 3))
  }

  test("collect retract removes the retracted elements") {
    val a = agg("collect", ArrayType(IntType()))
    assert(arrValues(fold(a, Seq(P -> arr(1, 2), P -> arr(2, 3), R -> arr(2)))) == Seq(1, 3))
    assert(fold(a, Seq(R -> arr(2))) == null)
  }

  test("collect of strings compares by value") {
    val a = agg("collect", ArrayType(VarCharType(VarCharType.MaxLength)), Map("fields.f.distinct" -> "true"))
    val out = fold(a, Seq(P -> arr(str("x")), P -> arr(UTF8String.fromBytes("x".getBytes))))
    assert(out.asInstanceOf[ArrayData].numElements() == 1)
  }

  test("merge_map: later value wins per key; retract removes keys") {
    val a = agg("merge_map", MapType(IntType(false), VarCharType(VarCharType.MaxLength)))
    val merged = fold(a, Seq(P -> map(1 -> str("a"), 2 -> str("b")), P -> null, P -> map(2 -> str("B"), 3 -> null)))
    assert(mapValues(merged) == Seq(1 -> "a", 2 -> "B", 3 -> null))
    assert(mapValues(fold(a, Seq(P -> map(1 -> str("a"), 2 -> str("b")), R -> map(1 -> str("zzz"))))) == Seq(2 -> "b"))
  }

  test("functions that cannot retract say so") {
    Seq("min", "max", "first_value", "first_non_null_value", "listagg").foreach { fn =>
      val t = if (fn == "listagg") VarCharType(VarCharType.MaxLength) else IntType()
      assert(!agg(fn, t).supportsRetract, fn)
    }
    assert(!agg("bool_or", BooleanType()).supportsRetract)
    assert(AggregateFunction.All.filter(_.retracts).map(_.name).toSet ==
      Set("sum", "product", "collect", "merge_map", "nested_update", "last_value", "last_non_null_value"))
  }

  test("each function's implementation retracts exactly when its type says it does") {
    AggregateFunction.All.foreach { fn =>
      val t = fn match {
        case AggregateFunction.BoolAnd | AggregateFunction.BoolOr => BooleanType()
        case AggregateFunction.ListAgg => VarCharType(VarCharType.MaxLength)
        case AggregateFunction.Collect => ArrayType(IntType())
        case AggregateFunction.MergeMap => MapType(IntType(), IntType())
        case AggregateFunction.MergeMapWithKeyTime => MapType(IntType(), Nested)
        case AggregateFunction.NestedUpdate | AggregateFunction.NestedPartialUpdate => ArrayType(Nested)
        case AggregateFunction.RoaringBitmap32 | AggregateFunction.RoaringBitmap64 | AggregateFunction.HllSketch |
            AggregateFunction.ThetaSketch => Bytes
        case _ => IntType()
      }
      val a = agg(s" ${fn.name.toUpperCase} ", t, Map("fields.f.nested-key" -> "k"))
      assert(a.supportsRetract == fn.retracts, fn)
      assert(AggregateFunction.parse(a.name).contains(fn), fn)
    }
    assert(AggregateFunction.parse("median").isEmpty)
    assert(AggregateFunction.parse("first_not_null_value").contains(AggregateFunction.FirstNonNullValue)) // Paimon's old name
  }

  test("unsupported types and unknown functions are rejected naming table, column and option") {
    val e = intercept[BadInputException](agg("sum", VarCharType(VarCharType.MaxLength)))
    assert(e.getMessage == "Table db.t: aggregate function 'sum' of column 'f' (option 'fields.f.aggregate-function') " +
      "does not support type STRING; it needs a numeric type")
    assert(intercept[BadInputException](agg("max", BooleanType())).getMessage.contains("does not support type BOOLEAN"))
    assert(intercept[BadInputException](agg("bool_and", IntType())).getMessage.contains("it needs BOOLEAN"))
    assert(intercept[BadInputException](agg("listagg", IntType())).getMessage.contains("it needs a string type"))
    assert(intercept[BadInputException](agg("collect", IntType())).getMessage.contains("it needs an ARRAY type"))
    assert(intercept[BadInputException](agg("merge_map", IntType())).getMessage.contains("it needs a MAP type"))
    val u = intercept[BadInputException](agg("median", IntType()))
    assert(u.getMessage.startsWith(
        "Table db.t: unknown aggregate function 'median' for column 'f' (option 'fields.f.aggregate-function'); supported: sum, min"))
    val d = intercept[BadInputException](agg("collect", ArrayType(IntType()), Map("fields.f.distinct" -> "yes")))
    assert(d.getMessage == "Table db.t: invalid value 'yes' for option 'fields.f.distinct': expected true or false")
  }
}
