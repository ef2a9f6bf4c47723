package lamina.table.predicate

import java.time.LocalDate

import org.apache.spark.sql.types.{DataType => SparkType, _}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import PredicateEval.ColumnStats

class PredicateEvalTest extends AnyFunSuite {

  // ------------------------------------------------------------------------------------ eval on a row

  private val day = LocalDate.of(2024, 6, 1).toEpochDay.toInt
  private val row: Map[String, (Any, SparkType)] = Map(
    "i" -> (5, IntegerType),
    "l" -> (5L, LongType),
    "n" -> (null, IntegerType),
    "s" -> (UTF8String.fromString("banana"), StringType),
    "ns" -> (null, StringType),
    "d" -> (Decimal(BigDecimal("12.30"), 10, 2), DecimalType(10, 2)),
    "dt" -> (day, DateType),
    "b" -> (true, BooleanType),
    "x" -> (2.5, DoubleType))
  private def eval(f: Predicate): Option[Boolean] = PredicateEval.eval(f, row.get)

  private val T = Some(true)
  private val F = Some(false)

  test("comparisons on ints, longs, strings, decimals, dates, booleans, doubles") {
    val cases: Seq[(Predicate, Option[Boolean])] = Seq(
      EqualTo("i", 5) -> T, EqualTo("i", 6) -> F, EqualTo("i", 5L) -> T, EqualTo("l", 5) -> T,
      GreaterThan("i", 4) -> T, GreaterThan("i", 5) -> F, GreaterThanOrEqual("i", 5) -> T,
      LessThan("i", 5) -> F, LessThan("i", 6) -> T, LessThanOrEqual("i", 5) -> T, LessThanOrEqual("i", 4) -> F,
      EqualTo("s", "banana") -> T, EqualTo("s", "Banana") -> F, GreaterThan("s", "apple") -> T,
      LessThan("s", "banana2") -> T, LessThan("s", "ban") -> F,
      EqualTo("d", new java.math.BigDecimal("12.3")) -> T, EqualTo("d", new java.math.BigDecimal("12.31")) -> F,
      GreaterThan("d", new java.math.BigDecimal("12.299")) -> T, LessThan("d", BigDecimal("12.30").bigDecimal) -> F,
      EqualTo("dt", LocalDate.of(2024, 6, 1)) -> T, EqualTo("dt", java.sql.Date.valueOf("2024-06-01")) -> T,
      GreaterThan("dt", LocalDate.of(2024, 5, 31)) -> T, LessThan("dt", LocalDate.of(2024, 6, 1)) -> F,
      EqualTo("b", true) -> T, EqualTo("b", false) -> F,
      GreaterThan("x", 2.0f) -> T, EqualTo("x", 2.5) -> T)
    for ((f, want) <- cases) assert(eval(f) === want, f)
  }

  test("nulls: comparisons with a null value or literal never hold") {
    val cases: Seq[(Predicate, Option[Boolean])] = Seq(
      EqualTo("n", 5) -> F, GreaterThan("n", 5) -> F, LessThan("n", 5) -> F, EqualTo("i", null) -> F,
      EqualTo("ns", "a") -> F, StringStartsWith("ns", "a") -> F,
      IsNull("n") -> T, IsNull("i") -> F, IsNotNull("n") -> F, IsNotNull("i") -> T,
      EqualNullSafe("n", null) -> T, EqualNullSafe("i", null) -> F, EqualNullSafe("n", 5) -> F,
      EqualNullSafe("i", 5) -> T, EqualNullSafe("i", 6) -> F)
    for ((f, want) <- cases) assert(eval(f) === want, f)
  }

  test("In, including nulls in the list and an empty list") {
    val cases: Seq[(Predicate, Option[Boolean])] = Seq(
      In("i", Array(1, 5, 9)) -> T, In("i", Array(1, 9)) -> F, In("i", Array(1, null)) -> F,
      In("i", Array(null, 5)) -> T, In("n", Array(1, 5)) -> F, In("n", Array(null)) -> F, In("i", Array()) -> F,
      In("s", Array("apple", "banana")) -> T, In("dt", Array(LocalDate.of(2024, 6, 1))) -> T)
    for ((f, want) <- cases) assert(eval(f) === want, f)
  }

  test("string predicates") {
    val cases: Seq[(Predicate, Option[Boolean])] = Seq(
      StringStartsWith("s", "ban") -> T, StringStartsWith("s", "nan") -> F, StringEndsWith("s", "ana") -> T,
      StringEndsWith("s", "ban") -> F, StringContains("s", "nan") -> T, StringContains("s", "x") -> F,
      StringStartsWith("s", "") -> T)
    for ((f, want) <- cases) assert(eval(f) === want, f)
  }

  test("And, Or and Not follow SQL's three-valued logic: a NULL result never matches, negated or not") {
    val isNull = EqualTo("n", 5) // NULL
    val yes = EqualTo("i", 5) // TRUE
    val no = EqualTo("i", 6) // FALSE
    val cases: Seq[(Predicate, Option[Boolean])] = Seq(
      And(yes, yes) -> T, And(yes, no) -> F, And(isNull, no) -> F, And(isNull, yes) -> F,
      Or(no, yes) -> T, Or(isNull, yes) -> T, Or(isNull, no) -> F, Or(no, no) -> F,
      Not(yes) -> F, Not(no) -> T,
      Not(isNull) -> F,
      Not(In("n", Array(1))) -> F,
      Not(In("i", Array(1, null))) -> F,
      Not(In("i", Array(1, 9))) -> T,
      Not(Or(isNull, no)) -> F,
      Not(And(isNull, yes)) -> F,
      Not(And(isNull, no)) -> T,
      Not(Not(isNull)) -> F,
      Not(Not(yes)) -> T,
      Not(IsNull("n")) -> F,
      Not(StringStartsWith("ns", "a")) -> F,
      Not(EqualNullSafe("n", 5)) -> T,
      AlwaysTrue() -> T, AlwaysFalse() -> F, Not(AlwaysFalse()) -> T)
    for ((f, want) <- cases) assert(eval(f) === want, f)
  }

  test("unknown columns and incomparable literals are unknown, and stay unknown under Not") {
    val unknown = EqualTo("nope", 1)
    val incomparable = EqualTo("i", "five")
    val cases: Seq[(Predicate, Option[Boolean])] = Seq(
      unknown -> None, IsNull("nope") -> None, Not(unknown) -> None,
      And(unknown, EqualTo("i", 6)) -> F, And(unknown, EqualTo("i", 5)) -> None,
      Or(unknown, EqualTo("i", 5)) -> T, Or(unknown, EqualTo("i", 6)) -> None,
      incomparable -> None, Not(incomparable) -> None, GreaterThan("s", 3) -> None,
      In("i", Array("five")) -> None, Not(In("i", Array("five"))) -> None, In("i", Array("five", 5)) -> T,
      Not(EqualTo("i", 10000000000L)) -> None)
    for ((f, want) <- cases) assert(eval(f) === want, f)
  }

  test("compare: internal value against an external literal") {
    assert(PredicateEval.compare(5, 5, IntegerType) === Some(0))
    assert(PredicateEval.compare(5, 6L, IntegerType).map(math.signum) === Some(-1))
    assert(PredicateEval.compare(5L, 4, LongType).map(math.signum) === Some(1))
    assert(PredicateEval.compare(UTF8String.fromString("b"), "a", StringType).map(math.signum) === Some(1))
    assert(PredicateEval.compare(Array[Byte](1, -1), Array[Byte](1, 2), BinaryType).map(math.signum) === Some(1))
    assert(PredicateEval.compare(5, null, IntegerType) === None)
    assert(PredicateEval.compare(5, "x", IntegerType) === None)
    assert(PredicateEval.compare(1.5f, 1.5, FloatType) === None)
  }

  // --------------------------------------------------------------------------- mightMatch on stats

  private def might(f: Predicate, stats: (String, ColumnStats)*): Boolean = PredicateEval.mightMatch(f, stats.toMap.get)

  private val ints = "i" -> ColumnStats(10, 20, Some(0L), 100L, IntegerType)

  test("ranges on int stats [10, 20]") {
    val cases: Seq[(Predicate, Boolean)] = Seq(
      EqualTo("i", 5) -> false, EqualTo("i", 10) -> true, EqualTo("i", 15) -> true, EqualTo("i", 20) -> true,
      EqualTo("i", 21) -> false, EqualTo("i", 15L) -> true,
      GreaterThan("i", 20) -> false, GreaterThan("i", 19) -> true, GreaterThanOrEqual("i", 20) -> true,
      GreaterThanOrEqual("i", 21) -> false, LessThan("i", 10) -> false, LessThan("i", 11) -> true,
      LessThanOrEqual("i", 10) -> true, LessThanOrEqual("i", 9) -> false,
      In("i", Array(1, 25)) -> false, In("i", Array(1, 15)) -> true, In("i", Array(30, null)) -> true,
      IsNull("i") -> false, IsNotNull("i") -> true,
      And(GreaterThan("i", 15), LessThan("i", 12)) -> true, And(EqualTo("i", 5), GreaterThan("i", 0)) -> false,
      Or(EqualTo("i", 5), EqualTo("i", 25)) -> false, Or(EqualTo("i", 5), EqualTo("i", 15)) -> true,
      Not(EqualTo("i", 15)) -> true, Not(EqualTo("i", 5)) -> true,
      EqualTo("i", null) -> true, EqualTo("i", "x") -> true,
      EqualTo("other", 1) -> true, StringStartsWith("i", "1") -> true, AlwaysFalse() -> false, AlwaysTrue() -> true)
    for ((f, want) <- cases) assert(might(f, ints) === want, f)
  }

  test("all-null, partly null and unknown stats") {
    val allNull = "i" -> ColumnStats(null, null, Some(50L), 50L, IntegerType)
    val someNull = "i" -> ColumnStats(10, 20, Some(3L), 50L, IntegerType)
    val unknown = "i" -> ColumnStats(null, null, None, 50L, IntegerType)
    val cases: Seq[(Predicate, (String, ColumnStats), Boolean)] = Seq(
      (EqualTo("i", 1), allNull, false), (GreaterThan("i", 1), allNull, false), (In("i", Array(1, 2)), allNull, false),
      (IsNull("i"), allNull, true), (IsNotNull("i"), allNull, false), (IsNull("i"), someNull, true),
      (IsNotNull("i"), someNull, true), (EqualTo("i", 25), someNull, false), (EqualTo("i", 1), unknown, true),
      (IsNull("i"), unknown, true), (IsNotNull("i"), unknown, true), (LessThan("i", 0), unknown, true))
    for ((f, s, want) <- cases) assert(might(f, s) === want, s"$f on $s")
  }

  test("strings, decimals, dates, longs and doubles") {
    val s = "s" -> ColumnStats(UTF8String.fromString("apple"), UTF8String.fromString("banana"), Some(0L), 9L, StringType)
    val d = "d" -> ColumnStats(Decimal(BigDecimal("12.30"), 10, 2), Decimal(BigDecimal("99.99"), 10, 2), Some(0L), 9L,
      DecimalType(10, 2))
    val jan1 = LocalDate.of(2024, 1, 1)
    val dt = "dt" -> ColumnStats(jan1.toEpochDay.toInt, LocalDate.of(2024, 12, 31).toEpochDay.toInt, Some(0L), 9L, DateType)
    val l = "l" -> ColumnStats(10L, 20L, Some(0L), 9L, LongType)
    val x = "x" -> ColumnStats(-1.5, 2.5, Some(0L), 9L, DoubleType)
    val cases: Seq[(Predicate, (String, ColumnStats), Boolean)] = Seq(
      (EqualTo("s", "cherry"), s, false), (EqualTo("s", "apricot"), s, true), (EqualTo("s", "app"), s, false),
      (GreaterThan("s", "banana"), s, false), (GreaterThanOrEqual("s", "banana"), s, true), (LessThan("s", "apple"), s, false),
      (In("s", Array("zebra", "avocado")), s, true), (EqualTo("d", new java.math.BigDecimal("12.3")), d, true),
      (EqualTo("d", new java.math.BigDecimal("100.00")), d, false), (LessThan("d", new java.math.BigDecimal("12.30")), d, false),
      (GreaterThan("d", new java.math.BigDecimal("99.989")), d, true),
      (EqualTo("dt", java.sql.Date.valueOf("2025-01-01")), dt, false), (EqualTo("dt", LocalDate.of(2024, 6, 1)), dt, true),
      (LessThan("dt", jan1), dt, false), (LessThanOrEqual("dt", jan1), dt, true), (EqualTo("l", 5), l, false),
      (EqualTo("l", 15), l, true), (GreaterThan("l", 20L), l, false), (GreaterThan("x", 2.5f), x, false),
      (LessThan("x", -1.5), x, false), (EqualTo("x", 0.0), x, true))
    for ((f, st, want) <- cases) assert(might(f, st) === want, f)
  }
}
