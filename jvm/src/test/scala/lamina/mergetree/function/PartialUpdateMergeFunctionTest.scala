package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.mergetree.{KeyValue, RowKind}
import lamina.types._
import lamina.mergetree.MergeTestRows._

class PartialUpdateMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(
    field(0, "k", IntType(false)),
    field(1, "a", IntType()),
    field(2, "b", IntType()),
    field(3, "g1", IntType()),
    field(4, "c", IntType()),
    field(5, "d", IntType()),
    field(6, "g2", IntType()))
  private val pu = Map("merge-engine" -> "partial-update")
  private val groups = pu ++ Map("fields.g1.sequence-group" -> "a,b", "fields.g2.sequence-group" -> "c,d")

  private def merge(
      options: Map[String, String], records: Seq[KeyValue], keepDelete: Boolean = false): Option[(String, Seq[Any])] = {
    val mf = MergeFunctions.create(fields, Seq("k"), options, "db.t")()
    mf.reset()
    records.foreach(mf.add)
    (if (keepDelete) mf.resultKeepingDelete().lastOption else mf.result()).map(kv =>
      (RowKind.shortString(kv.valueKind), values(kv.value, fields)))
  }

  private def r(vs: Any*) = row(vs: _*)

  // (name, options, records in sequence order, expected)
  private val cases: Seq[(String, Map[String, String], Seq[KeyValue], Option[(String, Seq[Any])])] = Seq(
    ("non-null fields overwrite, nulls do not", pu,
      Seq(kv(1, "+I", r(1, 1, null, null, 4, null, null)), kv(2, "+I", r(1, null, 2, null, 5, null, null))),
      Some(("+I", Seq(1, 1, 2, null, 5, null, null)))),
    ("ignore-delete drops deletes", pu + ("ignore-delete" -> "true"),
      Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-D", r(1, 1, 2, 3, 4, 5, 6))),
      Some(("+I", Seq(1, 1, 2, 3, 4, 5, 6)))),
    ("remove-record-on-delete removes the key", pu + ("partial-update.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-D", r(1, 1, 2, 3, 4, 5, 6))), None),
    ("after a removing delete later records start fresh", pu + ("partial-update.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-D", r(1, null, null, null, null, null, null)),
        kv(3, "+I", r(1, null, 9, null, null, null, null))),
      Some(("+I", Seq(1, null, 9, null, null, null, null)))),
    ("remove-record-on-delete ignores -U", pu + ("partial-update.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-U", r(1, 1, 2, 3, 4, 5, 6))),
      Some(("+I", Seq(1, 1, 2, 3, 4, 5, 6)))),
    ("sequence groups: a group advances only with its own sequence", groups,
      Seq(kv(1, "+I", r(1, 1, 1, 10, 1, 1, 10)),
        kv(2, "+I", r(1, 2, null, 5, 2, null, 11)), // g1 older: a,b kept; g2 newer: c,d written, NULL included
        kv(3, "+I", r(1, 3, 3, null, 3, 3, null))), // both group sequences NULL: nothing in either group changes
      Some(("+I", Seq(1, 1, 1, 10, 2, null, 11)))),
    ("sequence groups: equal sequence overwrites", groups,
      Seq(kv(1, "+I", r(1, 1, 1, 10, null, null, null)), kv(2, "+I", r(1, 7, null, 10, null, null, null))),
      Some(("+I", Seq(1, 7, null, 10, null, null, null)))),
    ("sequence groups: a retract clears only groups whose sequence advances", groups,
      Seq(kv(1, "+I", r(1, 1, 1, 10, 2, 2, 20)),
        kv(2, "-U", r(1, 1, 1, 11, 2, 2, 19))),
      Some(("+I", Seq(1, null, null, 11, 2, 2, 20)))),
    ("sequence groups: a retract with NULL group sequence touches nothing", groups,
      Seq(kv(1, "+I", r(1, 1, 1, 10, 2, 2, 20)), kv(2, "-D", r(1, 1, 1, null, 2, 2, null))),
      Some(("+I", Seq(1, 1, 1, 10, 2, 2, 20)))),
    ("sequence groups: a leading retract still carries the key", groups,
      Seq(kv(1, "-D", r(1, 1, 1, 10, null, null, null))),
      Some(("+I", Seq(1, null, null, 10, null, null, null)))))

  cases.foreach { case (name, options, records, expected) => test(name) { assert(merge(options, records) == expected) } }

  test("a delete without a delete option fails naming the table and the options to set") {
    val e = intercept[BadInputException](merge(pu, Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-D", r(1, 1, 2, 3, 4, 5, 6)))))
    assert(e.getMessage == "Table db.t: merge-engine partial-update cannot apply the -D record of a delete or update: " +
      "set 'ignore-delete' to drop such records, 'partial-update.remove-record-on-delete' to remove the whole row on delete, " +
      "or 'fields.<seq>.sequence-group' to retract the columns of sequence groups")
  }

  test("the kept delete record of a removed key") {
    val got = merge(pu + ("partial-update.remove-record-on-delete" -> "true"),
      Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-D", r(1, 1, 2, 3, 4, 5, 6))), keepDelete = true)
    assert(got == Some(("-D", Seq(1, 1, 2, 3, 4, 5, 6))))
  }

  test("a key removed then written again keeps its delete for compaction below the top level") {
    val mf = MergeFunctions.create(fields, Seq("k"), pu + ("partial-update.remove-record-on-delete" -> "true"), "db.t")()
    mf.reset()
    Seq(kv(1, "+I", r(1, 1, 2, 3, 4, 5, 6)), kv(2, "-D", r(1, 1, 2, 3, 4, 5, 6)),
      kv(3, "+I", r(1, null, 9, null, null, null, null)))
      .foreach(mf.add)
    assert(
      mf.resultKeepingDelete().map(kv => (kv.sequenceNumber, RowKind.shortString(kv.valueKind), values(kv.value, fields))) == Seq(
        (2L, "-D", Seq(1, 1, 2, 3, 4, 5, 6)), (3L, "+I", Seq(1, null, 9, null, null, null, null))))
  }

  test("multi-column group sequence compares column by column and moves together") {
    val opts = pu + ("fields.g1,g2.sequence-group" -> "a,b")
    assert(merge(opts, Seq(kv(1, "+I", r(1, 1, 1, 5, 0, 0, 1)), kv(2, "+I", r(1, 2, 2, 5, 0, 0, 0)))) ==
      Some(("+I", Seq(1, 1, 1, 5, 0, 0, 1))))
    assert(merge(opts, Seq(kv(1, "+I", r(1, 1, 1, 5, 0, 0, 1)), kv(2, "+I", r(1, 2, 2, 5, 0, 0, 2)))) ==
      Some(("+I", Seq(1, 2, 2, 5, 0, 0, 2))))
  }

  test("aggregate functions inside sequence groups, in and out of order") {
    val opts = groups + ("fields.a.aggregate-function" -> "sum", "fields.b.aggregate-function" -> "last_value")
    val got = merge(opts,
      Seq(
        kv(1, "+I", r(1, 1, 1, 10, null, null, null)),
        kv(2, "+I", r(1, 2, 2, 5, null, null, null)), // older: sum still adds, last_value keeps the newer 1
        kv(3, "+I", r(1, 4, 4, 12, null, null, null))))
    assert(got == Some(("+I", Seq(1, 7, 4, 12, null, null, null))))
    val retracted = merge(opts, Seq(kv(1, "+I", r(1, 5, 1, 10, null, null, null)), kv(2, "-U", r(1, 2, 1, 11, null, null, null))))
    assert(retracted == Some(("+I", Seq(1, 3, null, 11, null, null, null))))
  }

  test("default aggregate function applies to sequence group members only") {
    val opts = groups + ("fields.default-aggregate-function" -> "sum")
    val got = merge(opts, Seq(kv(1, "+I", r(1, 1, 1, 10, 1, 1, 1)), kv(2, "+I", r(1, 2, 2, 11, 2, 2, 2))))
    assert(got == Some(("+I", Seq(1, 3, 3, 11, 3, 3, 2))))
  }

  test("sequence.field orders the records before the partial update") {
    val opts = pu + ("sequence.field" -> "g1")
    val got = merge(opts, Seq(kv(1, "+I", r(1, 1, 1, 9, null, null, null)), kv(2, "+I", r(1, 2, null, 3, null, null, null))))
    assert(got == Some(("+I", Seq(1, 1, 1, 9, null, null, null))))
  }

  test("bad sequence-group options are rejected naming table, column and option") {
    def err(o: Map[String, String]) =
      intercept[BadInputException](MergeFunctions.create(fields, Seq("k"), pu ++ o, "db.t")).getMessage
    assert(err(
      Map("fields.nope.sequence-group" -> "a")) == "Table db.t: column 'nope' named by option 'fields.nope.sequence-group' does not exist")
    assert(err(
      Map("fields.g1.sequence-group" -> "a,zz")) == "Table db.t: column 'zz' named by option 'fields.g1.sequence-group' does not exist")
    assert(err(Map("fields.g1.sequence-group" -> "a", "fields.g2.sequence-group" -> "a")) ==
      "Table db.t: column 'a' belongs to more than one sequence group (option 'fields.g2.sequence-group')")
    assert(err(Map("fields.g1.sequence-group" -> "k")) ==
      "Table db.t: primary key column 'k' cannot be part of the sequence group of option 'fields.g1.sequence-group'")
    assert(err(Map("fields.g1.sequence-group" -> "a", "partial-update.remove-record-on-delete" -> "true")) ==
      "Table db.t: options 'partial-update.remove-record-on-delete' and 'fields.<seq>.sequence-group' cannot be used together")
    assert(err(Map("fields.c.aggregate-function" -> "sum")) ==
      "Table db.t: option 'fields.c.aggregate-function' needs column 'c' to be a member of a sequence group " +
      "('fields.<seq>.sequence-group') under merge-engine partial-update")
    assert(err(Map("partial-update.remove-record-on-delete" -> "sometimes")).startsWith(
        "Table db.t: Invalid value 'sometimes' for option 'partial-update.remove-record-on-delete'"))
  }
}
