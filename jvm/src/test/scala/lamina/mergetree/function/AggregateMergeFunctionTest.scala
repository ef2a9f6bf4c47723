package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.mergetree.{KeyValue, RowKind}
import lamina.types._
import lamina.mergetree.MergeTestRows._

class AggregateMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(
    field(0, "k", IntType(false)),
    field(1, "total", BigIntType()),
    field(2, "hi", IntType()),
    field(3, "name", VarCharType(VarCharType.MaxLength)),
    field(4, "tags", VarCharType(VarCharType.MaxLength)))
  private val base = Map(
    "merge-engine" -> "aggregation",
    "fields.total.aggregate-function" -> "sum",
    "fields.hi.aggregate-function" -> "max",
    "fields.tags.aggregate-function" -> "listagg")

  private def merge(
      options: Map[String, String], records: Seq[KeyValue], keepDelete: Boolean = false): Option[(String, Seq[Any])] = {
    val mf = MergeFunctions.create(fields, Seq("k"), options, "db.t")()
    mf.reset()
    records.foreach(mf.add)
    (if (keepDelete) mf.resultKeepingDelete().lastOption else mf.result())
      .map(kv => (RowKind.shortString(kv.valueKind), values(kv.value, fields)))
  }

  private val ignoreRetract = base ++ Map("fields.hi.ignore-retract" -> "true", "fields.tags.ignore-retract" -> "true")

  // (name, options, records in sequence order, expected)
  private val cases: Seq[(String, Map[String, String], Seq[KeyValue], Option[(String, Seq[Any])])] = Seq(
    ("one record", base, Seq(kv(1, "+I", row(1, 5L, 3, "a", "x"))), Some(("+I", Seq(1, 5L, 3, "a", "x")))),
    ("each column its function; name defaults to last_non_null_value", base,
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "+I", row(1, 2L, 9, null, "y")), kv(3, "+U", row(1, null, 1, "b", null))),
      Some(("+I", Seq(1, 7L, 9, "b", "x,y")))),
    ("retracts: sum subtracts, last_non_null_value clears, others ignored on request", ignoreRetract,
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-U", row(1, 2L, 3, "a", "x"))),
      Some(("+I", Seq(1, 3L, 3, null, "x")))),
    ("a -D keeps the key with its values retracted", ignoreRetract,
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x"))),
      Some(("+I", Seq(1, 0L, 3, null, "x")))),
    ("aggregation.remove-record-on-delete removes the key", base + ("aggregation.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x"))), None),
    ("after a removing delete the key starts fresh", base + ("aggregation.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x")), kv(3, "+I", row(1, 1L, 1, null, "z"))),
      Some(("+I", Seq(1, 1L, 1, null, "z")))),
    ("ignore-delete drops retracts", base + ("ignore-delete" -> "true"),
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x"))),
      Some(("+I", Seq(1, 5L, 3, "a", "x")))),
    ("fields.default-aggregate-function applies to columns without one",
      Map("merge-engine" -> "aggregation",
        "fields.default-aggregate-function" -> "last_value", "fields.total.aggregate-function" -> "sum"),
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "+I", row(1, 1L, null, null, "y"))),
      Some(("+I", Seq(1, 6L, null, null, "y")))))

  cases.foreach { case (name, options, records, expected) =>
    test(name) { assert(merge(options, records) == expected) }
  }

  test("the kept delete record of a removed key") {
    val got = merge(base + ("aggregation.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x"))), keepDelete = true)
    assert(got == Some(("-D", Seq(1, 5L, 3, "a", "x"))))
  }

  test("a key removed then written again keeps its delete for compaction below the top level") {
    val mf = MergeFunctions.create(fields, Seq("k"), base + ("aggregation.remove-record-on-delete" -> "true"), "db.t")()
    mf.reset()
    Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x")), kv(3, "+I", row(1, 1L, 1, null, "z")))
      .foreach(mf.add)
    assert(
      mf.resultKeepingDelete().map(kv => (kv.sequenceNumber, RowKind.shortString(kv.valueKind), values(kv.value, fields))) == Seq(
        (2L, "-D", Seq(1, 5L, 3, "a", "x")), (3L, "+I", Seq(1, 1L, 1, null, "z"))))
  }

  test("a retract that a function cannot apply fails naming table, column and option") {
    val e =
      intercept[BadInputException](merge(base, Seq(kv(1, "+I", row(1, 5L, 3, "a", "x")), kv(2, "-D", row(1, 5L, 3, "a", "x")))))
    assert(e.getMessage == "Table db.t: aggregate function 'max' of column 'hi' cannot retract a -U/-D record; " +
      "set 'fields.hi.ignore-retract'='true' to ignore such records for this column")
  }

  test("primary-key columns are never aggregated, even with a default function that fits them") {
    val fs = Seq(field(0, "k", IntType(false)), field(1, "n", IntType()))
    val mf = MergeFunctions.create(fs, Seq("k"),
      Map("merge-engine" -> "aggregation", "fields.default-aggregate-function" -> "sum",
        "fields.k.aggregate-function" -> "sum"), "db.t")()
    mf.reset()
    Seq(kv(1, "+I", row(7, 1)), kv(2, "+I", row(7, 2)), kv(3, "-U", row(7, 1))).foreach(mf.add)
    assert(mf.result().map(r => values(r.value, fs)) == Some(Seq(7, 2)))
  }

  test("options naming missing columns or bad values are rejected") {
    val e = intercept[BadInputException](MergeFunctions.create(fields, Seq("k"),
        base + ("fields.nope.aggregate-function" -> "sum"), "db.t"))
    assert(e.getMessage == "Table db.t: column 'nope' named by option 'fields.nope.aggregate-function' does not exist")
    val e2 = intercept[BadInputException](MergeFunctions.create(fields, Seq("k"), base + ("fields.hi.ignore-retract" -> "maybe"),
        "db.t"))
    assert(e2.getMessage == "Table db.t: invalid value 'maybe' for option 'fields.hi.ignore-retract': expected true or false")
    val e3 = intercept[BadInputException](MergeFunctions.create(fields, Seq("k"),
        base + ("fields.default-aggregate-function" -> "sum"), "db.t"))
    assert(
      e3.getMessage == "Table db.t: aggregate function 'sum' of column 'name' (option 'fields.default-aggregate-function') " +
        "does not support type STRING; it needs a numeric type")
  }
}
