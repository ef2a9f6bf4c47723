package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.mergetree.KeyValue
import lamina.types._
import lamina.mergetree.MergeTestRows._

class FirstRowMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "v", IntType()))
  private val options = Map("merge-engine" -> "first-row")

  private def merge(records: Seq[KeyValue]): Option[(Long, Seq[Any])] = {
    val mf = MergeFunctions.create(fields, Seq("k"), options, "db.t")()
    mf.reset()
    records.foreach(mf.add)
    mf.result().map(kv => (kv.sequenceNumber, values(kv.value, fields)))
  }

  private val cases: Seq[(String, Seq[KeyValue], Option[(Long, Seq[Any])])] = Seq(
    ("first record wins", Seq(kv(1, "+I", row(1, 10)), kv(2, "+I", row(1, 20))), Some((1L, Seq(1, 10)))),
    ("nulls of the first row are kept", Seq(kv(1, "+I", row(1, null)), kv(2, "+I", row(1, 20))), Some((1L, Seq(1, null)))),
    ("deletes are ignored", Seq(kv(1, "+I", row(1, 10)), kv(2, "-D", row(1, 10)), kv(3, "+I", row(1, 30))),
      Some((1L, Seq(1, 10)))),
    ("a leading delete is ignored", Seq(kv(1, "-D", row(1, 10)), kv(2, "+I", row(1, 20))), Some((2L, Seq(1, 20)))),
    ("only retracts: no row", Seq(kv(1, "-U", row(1, 10))), None))

  cases.foreach { case (name, records, expected) => test(name) { assert(merge(records) == expected) } }

  test("sequence.field is rejected") {
    val e = intercept[BadInputException](MergeFunctions.create(fields, Seq("k"), options + ("sequence.field" -> "v"), "db.t"))
    assert(
      e.getMessage == "Table db.t: option 'sequence.field' cannot be used with merge-engine first-row, which keeps the earliest written row")
  }
}
