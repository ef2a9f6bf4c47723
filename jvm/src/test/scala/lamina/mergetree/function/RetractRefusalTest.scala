package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.RowKind
import lamina.types._
import lamina.mergetree.MergeTestRows._

/** Which retract records (-U, -D) each merge function could merge: what writers of `rowkind.field`
 *  rows refuse before a file holds a record that would fail every later read. */
class RetractRefusalTest extends AnyFunSuite {
  private val fields = Seq(
    field(0, "k", IntType(false)),
    field(1, "total", BigIntType()),
    field(2, "hi", IntType()))
  private def refusal(options: Map[String, String], kind: Byte): Option[String] =
    MergeFunctions.create(fields, Seq("k"), options, "db.t")().retractRefusal(kind)

  private val agg = Map("merge-engine" -> "aggregation", "fields.total.aggregate-function" -> "sum",
    "fields.hi.aggregate-function" -> "max")

  test("deduplicate merges every retract") {
    assert(refusal(Map.empty, RowKind.Delete).isEmpty && refusal(Map.empty, RowKind.UpdateBefore).isEmpty)
  }

  test("first-row refuses every retract, pointing to ignore-delete (as Paimon's writers do)") {
    val o = Map("merge-engine" -> "first-row")
    assert(refusal(o, RowKind.Delete).contains("merge-engine first-row keeps the first row of each key and cannot " +
        "apply the -D record of a delete or update: set 'ignore-delete' to drop such records"))
    assert(refusal(o, RowKind.UpdateBefore).exists(_.contains("cannot apply the -U record")))
  }

  test("aggregation: a column whose function cannot retract refuses retracts, naming it and the options") {
    assert(refusal(agg, RowKind.UpdateBefore).contains(
        "aggregate function 'max' of column 'hi' cannot retract the -U record of a delete or update: set " +
          "'fields.hi.ignore-retract' to skip such records for the column, 'ignore-delete' to drop them"))
    assert(refusal(agg, RowKind.Delete).exists(_.endsWith(
          ", or 'aggregation.remove-record-on-delete' to remove the whole row on delete")))
    assert(refusal(agg + ("fields.hi.ignore-retract" -> "true"), RowKind.UpdateBefore).isEmpty)
    assert(refusal(agg + ("fields.hi.aggregate-function" -> "sum"), RowKind.Delete).isEmpty)
    assert(refusal(agg + ("ignore-delete" -> "true"), RowKind.Delete).isEmpty)
    // remove-record-on-delete takes -D, not -U, which still retracts column by column
    val remove = agg + ("aggregation.remove-record-on-delete" -> "true")
    assert(refusal(remove, RowKind.Delete).isEmpty && refusal(remove, RowKind.UpdateBefore).nonEmpty)
  }

  test("partial-update takes retracts only with ignore-delete, remove-record-on-delete or sequence groups") {
    val pu = Map("merge-engine" -> "partial-update")
    assert(refusal(pu, RowKind.Delete).exists(_.contains("'partial-update.remove-record-on-delete'")))
    assert(refusal(pu + ("ignore-delete" -> "true"), RowKind.Delete).isEmpty)
    assert(refusal(pu + ("partial-update.remove-record-on-delete" -> "true"), RowKind.UpdateBefore).isEmpty)
    assert(refusal(pu + ("fields.total.sequence-group" -> "hi"), RowKind.Delete).isEmpty)
  }

  test("a sequence field keeps the refusal of the engine it wraps") {
    assert(refusal(agg + ("sequence.field" -> "total"), RowKind.UpdateBefore).nonEmpty)
  }
}
