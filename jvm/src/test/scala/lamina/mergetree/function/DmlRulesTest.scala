package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.types._
import lamina.mergetree.MergeTestRows._

class DmlRulesTest extends AnyFunSuite {
  private val fields = Seq(
    field(0, "dt", VarCharType(VarCharType.MaxLength, nullable = false)),
    field(1, "k", IntType(false)),
    field(2, "total", BigIntType()),
    field(3, "name", VarCharType(VarCharType.MaxLength)))
  private val pk = Seq("dt", "k")
  private val parts = Seq("dt")

  // the table below names operations as the write path used to spell them
  private val ops: Map[String, DmlOperation] = Map("DELETE" -> DmlOperation.Delete, "UPDATE" -> DmlOperation.Update,
    "MERGE_DELETE" -> DmlOperation.MergeDelete, "MERGE_UPDATE" -> DmlOperation.MergeUpdate,
    "INSERT_OVERWRITE" -> DmlOperation.InsertOverwrite)

  private def check(op: String, options: Map[String, String], updated: Seq[String] = Nil): Option[String] =
    DmlRules.check(ops(op), updated, fields, pk, parts, options, "db.t")

  private val dedup = Map.empty[String, String]
  private val firstRow = Map("merge-engine" -> "first-row")
  private val pu = Map("merge-engine" -> "partial-update")
  private val puRemove = pu + ("partial-update.remove-record-on-delete" -> "true")
  private val agg = Map("merge-engine" -> "aggregation", "fields.total.aggregate-function" -> "sum")
  private val aggLast = Map("merge-engine" -> "aggregation", "fields.total.aggregate-function" -> "max",
    "fields.name.aggregate-function" -> "last_value")

  // (options, op, updated columns, allowed?)
  private val table: Seq[(String, Map[String, String], String, Seq[String], Boolean)] = Seq(
    ("deduplicate", dedup, "DELETE", Nil, true), ("deduplicate", dedup, "UPDATE", Seq("name"), true),
    ("deduplicate", dedup, "MERGE_DELETE", Nil, true), ("deduplicate", dedup, "MERGE_UPDATE", Nil, true),
    ("deduplicate", dedup, "INSERT_OVERWRITE", Nil, true),
    ("deduplicate + ignore-delete", dedup + ("ignore-delete" -> "true"), "DELETE", Nil, false),
    ("deduplicate + ignore-delete", dedup + ("ignore-delete" -> "true"), "UPDATE", Seq("name"), true),
    ("first-row", firstRow, "DELETE", Nil, false), ("first-row", firstRow, "UPDATE", Seq("name"), false),
    ("first-row", firstRow, "MERGE_DELETE", Nil, false), ("first-row", firstRow, "MERGE_UPDATE", Nil, false),
    ("first-row", firstRow, "INSERT_OVERWRITE", Nil, true), ("partial-update", pu, "DELETE", Nil, false),
    ("partial-update", pu, "MERGE_DELETE", Nil, false), ("partial-update", pu, "UPDATE", Seq("name"), true),
    ("partial-update", pu, "MERGE_UPDATE", Nil, true),
    ("partial-update + remove-record-on-delete", puRemove, "DELETE", Nil, true),
    ("partial-update + remove-record-on-delete + ignore-delete", puRemove + ("ignore-delete" -> "true"), "DELETE", Nil, false),
    ("partial-update + ignore-delete", pu + ("ignore-delete" -> "true"), "DELETE", Nil, false),
    ("aggregation sum, name last_non_null_value", agg, "DELETE", Nil, false),
    ("aggregation sum", agg, "UPDATE", Seq("name"), false), ("aggregation sum", agg, "UPDATE", Seq("total"), false),
    ("aggregation max + last_value", aggLast, "DELETE", Nil, false),
    // a union of sets counts nothing twice; nested_update would append the rows again
    ("aggregation rbm32 + last_value", aggLast + ("fields.total.aggregate-function" -> "rbm32"), "UPDATE", Seq("name"), true),
    ("aggregation nested_update + last_value", aggLast + ("fields.total.aggregate-function" -> "nested_update"), "UPDATE",
      Seq("name"), false),
    ("aggregation max ignoring retract", aggLast + ("fields.total.ignore-retract" -> "true"), "DELETE", Nil, false),
    ("aggregation remove-record-on-delete", aggLast + ("aggregation.remove-record-on-delete" -> "true"), "DELETE", Nil, true),
    ("aggregation max + last_value", aggLast, "UPDATE", Seq("name"), true),
    ("aggregation max + last_value", aggLast, "UPDATE", Seq("total"), false),
    ("aggregation max + last_value", aggLast, "MERGE_UPDATE", Nil, false),
    ("aggregation listagg distinct left unchanged",
      Map("merge-engine" -> "aggregation", "fields.name.aggregate-function" -> "listagg",
        "fields.name.distinct" -> "true"), "UPDATE", Seq("total"), true),
    ("aggregation listagg left unchanged", Map("merge-engine" -> "aggregation", "fields.name.aggregate-function" -> "listagg"),
      "UPDATE", Seq("total"), false), ("aggregation", agg, "INSERT_OVERWRITE", Nil, true))

  table.foreach { case (name, options, op, updated, allowed) =>
    test(s"$name: $op${if (updated.isEmpty) "" else updated.mkString(" of ", ",", "")} is ${if (allowed) "allowed" else "rejected"}") {
      val got = check(op, options, updated)
      assert(got.isEmpty == allowed, got)
    }
  }

  test("updating a primary key or partition column is always rejected") {
    Seq(dedup, pu, aggLast).foreach { o =>
      assert(check("UPDATE", o, Seq("k")) ==
        Some(s"UPDATE is not supported on table db.t (merge-engine ${o.getOrElse("merge-engine", "deduplicate")}): " +
          "column 'k' is a primary key column and cannot be updated"))
    }
    val fs = fields :+ field(4, "region", IntType())
    assert(DmlRules.check(DmlOperation.MergeUpdate, Seq("region"), fs, Seq("k"), Seq("region"), dedup, "db.t") ==
      Some(
        "MERGE INTO ... UPDATE is not supported on table db.t (merge-engine deduplicate): column 'region' is a partition column and cannot be updated"))
  }

  test("reasons name the table, the engine and why") {
    assert(check("DELETE", firstRow) ==
      Some(
        "DELETE is not supported on table db.t (merge-engine first-row): first-row keeps the first row of each key and ignores later changes"))
    assert(check("DELETE", pu) == Some("DELETE is not supported on table db.t (merge-engine partial-update): " +
      "partial-update removes a row on delete only with 'partial-update.remove-record-on-delete'='true'"))
    assert(check("DELETE", dedup + ("ignore-delete" -> "true")) == Some(
      "DELETE is not supported on table db.t (merge-engine deduplicate): " +
        "option 'ignore-delete' is set, so delete records are dropped and the DELETE would do nothing"))
    assert(check("DELETE", aggLast) == Some("DELETE is not supported on table db.t (merge-engine aggregation): " +
      "a DELETE would leave the key with retracted aggregates instead of removing it; " +
      "set 'aggregation.remove-record-on-delete'='true'"))
    assert(check("UPDATE", aggLast, Seq("total")) == Some("UPDATE is not supported on table db.t (merge-engine aggregation): " +
      "aggregate function 'max' of column 'total' would aggregate the new value with the old one instead of replacing it; " +
      "only last_value and last_non_null_value columns can be updated"))
    assert(check("UPDATE", agg, Seq("name")) == Some("UPDATE is not supported on table db.t (merge-engine aggregation): " +
      "the update rewrites the whole row, and aggregate function 'sum' of column 'total' would count the unchanged value again"))
  }

  test("every operation is judged") {
    assert(ops.values.toSet == DmlOperation.All.toSet)
  }
}
