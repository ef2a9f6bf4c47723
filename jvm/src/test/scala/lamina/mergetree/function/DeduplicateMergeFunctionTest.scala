package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.{KeyValue, MergeFunction, RowKind}
import lamina.types._
import lamina.mergetree.MergeTestRows._

class DeduplicateMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "v", IntType()), field(2, "ts", BigIntType()))

  private def run(mf: MergeFunction, records: Seq[KeyValue]): Option[(String, Seq[Any])] = {
    mf.reset()
    records.foreach(mf.add)
    mf.result().map(kv => (RowKind.shortString(kv.valueKind), values(kv.value, fields)))
  }

  private val dedup = () => MergeFunctions.create(fields, Seq("k"), Map.empty, "db.t")()

  // (records in sequence order, expected result)
  private val cases: Seq[(String, Seq[KeyValue], Option[(String, Seq[Any])])] = Seq(
    ("single insert", Seq(kv(1, "+I", row(1, 10, null))), Some(("+I", Seq(1, 10, null)))),
    ("latest wins, nulls included", Seq(kv(1, "+I", row(1, 10, 5L)), kv(2, "+U", row(1, null, null))),
      Some(("+U", Seq(1, null, null)))),
    ("delete last: gone", Seq(kv(1, "+I", row(1, 10, 5L)), kv(2, "-D", row(1, 10, 5L))), None),
    ("update-before last: gone", Seq(kv(1, "+I", row(1, 10, 5L)), kv(2, "-U", row(1, 10, 5L))), None),
    ("insert after delete", Seq(kv(1, "-D", row(1, 1, 1L)), kv(2, "+I", row(1, 2, 2L))), Some(("+I", Seq(1, 2, 2L)))),
    ("only a delete", Seq(kv(1, "-D", row(1, 1, 1L))), None))

  cases.foreach { case (name, records, expected) =>
    test(s"deduplicate: $name") { assert(run(dedup(), records) == expected) }
  }

  test("resultKeepingDelete returns the winning retract record") {
    val mf = dedup()
    mf.reset()
    mf.add(kv(1, "+I", row(1, 1, 1L)))
    mf.add(kv(2, "-D", row(1, 1, 1L)))
    assert(mf.result().isEmpty)
    assert(mf.resultKeepingDelete().map(kv => (kv.sequenceNumber, kv.valueKind)) == Seq((2L, RowKind.Delete)))
  }

  test("ignore-delete drops retract records") {
    val mf = MergeFunctions.create(fields, Seq("k"), Map("ignore-delete" -> "true"), "db.t")()
    assert(run(mf, Seq(kv(1, "+I", row(1, 10, 5L)), kv(2, "-D", row(1, 10, 5L)))) == Some(("+I", Seq(1, 10, 5L))))
    assert(run(mf, Seq(kv(1, "-D", row(1, 10, 5L)))).isEmpty)
  }

  test("sequence.field: the larger value wins whatever the write order; ties by sequence number") {
    val mf = MergeFunctions.create(fields, Seq("k"), Map("sequence.field" -> "ts"), "db.t")()
    assert(run(mf, Seq(kv(1, "+I", row(1, 1, 9L)), kv(2, "+I", row(1, 2, 3L)))) == Some(("+I", Seq(1, 1, 9L))))
    assert(run(mf, Seq(kv(1, "+I", row(1, 1, 3L)), kv(2, "+I", row(1, 2, 3L)))) == Some(("+I", Seq(1, 2, 3L))))
    // NULL orders first: any value beats it.
    assert(run(mf, Seq(kv(1, "+I", row(1, 1, 0L)), kv(2, "+I", row(1, 2, null)))) == Some(("+I", Seq(1, 1, 0L))))
    // A delete with an older sequence field loses to the row it would delete.
    assert(run(mf, Seq(kv(1, "+I", row(1, 1, 9L)), kv(2, "-D", row(1, 1, 8L)))) == Some(("+I", Seq(1, 1, 9L))))
    assert(run(mf, Seq(kv(1, "+I", row(1, 1, 9L)), kv(2, "-D", row(1, 1, 9L)))).isEmpty)
  }

  test("sequence.field with several columns compares them in order") {
    val fs = fields :+ field(3, "n", IntType())
    val mf = MergeFunctions.create(fs, Seq("k"), Map("sequence.field" -> "ts,n"), "db.t")()
    mf.reset()
    mf.add(kv(1, "+I", row(1, 1, 5L, 2)))
    mf.add(kv(2, "+I", row(1, 2, 5L, 1)))
    mf.add(kv(3, "+I", row(1, 3, 4L, 9)))
    assert(mf.result().map(r => values(r.value, fs)) == Some(Seq(1, 1, 5L, 2)))
  }

  test("bad sequence.field is rejected naming table, column and option") {
    val e =
      intercept[lamina.errors.BadInputException](MergeFunctions.create(fields, Seq("k"), Map("sequence.field" -> "nope"), "db.t"))
    assert(e.getMessage == "Table db.t: column 'nope' named by option 'sequence.field' does not exist")
    val e2 =
      intercept[lamina.errors.BadInputException](MergeFunctions.create(fields, Seq("k"), Map("merge-engine" -> "bogus"), "db.t"))
    assert(e2.getMessage == "Table db.t: Invalid value 'bogus' for option 'merge-engine': " +
      "expected one of deduplicate, partial-update, aggregation, first-row")
  }
}
