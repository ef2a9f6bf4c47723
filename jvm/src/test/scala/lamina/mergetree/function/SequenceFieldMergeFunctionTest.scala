package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.mergetree.{KeyValue, MergeFunction}
import lamina.types._
import lamina.mergetree.MergeTestRows._

/** `sequence.field` with `sequence.field.sort-order`: which record of a key is the later one. */
class SequenceFieldMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "v", VarCharType.string()), field(2, "ts", BigIntType()))

  private def merge(options: Map[String, String], records: KeyValue*): Option[Seq[Any]] = {
    val mf: MergeFunction = MergeFunctions.create(fields, Seq("k"), Map("sequence.field" -> "ts") ++ options, "db.t")()
    mf.reset()
    records.foreach(mf.add)
    mf.result().map(kv => values(kv.value, fields))
  }

  private val descending = Map("sequence.field.sort-order" -> "descending")

  test("descending: the smallest value wins whatever the write order") {
    val recs = Seq(kv(1, "+I", row(1, "a", 5L)), kv(2, "+I", row(1, "b", 3L)), kv(3, "+I", row(1, "c", 7L)))
    assert(merge(descending, recs: _*) === Some(Seq(1, "b", 3L)))
    assert(merge(descending, recs.reverse: _*) === Some(Seq(1, "b", 3L)))
    assert(merge(Map.empty, recs: _*) === Some(Seq(1, "c", 7L)))
    // the option's value is read without case, as Paimon's enums are
    assert(merge(Map("sequence.field.sort-order" -> "DESCENDING"), recs: _*) === Some(Seq(1, "b", 3L)))
  }

  test("descending: equal values fall back to the sequence number, the later write wins") {
    assert(merge(descending, kv(1, "+I", row(1, "a", 3L)), kv(2, "+I", row(1, "b", 3L)), kv(3, "+I", row(1, "c", 9L))) ===
      Some(Seq(1, "b", 3L)))
  }

  test("descending: NULL orders first, so any value beats it, and the later of two NULLs wins") {
    assert(merge(descending, kv(1, "+I", row(1, "a", 2L)), kv(2, "+I", row(1, "b", null))) === Some(Seq(1, "a", 2L)))
    assert(merge(descending, kv(1, "+I", row(1, "a", null)), kv(2, "+I", row(1, "b", null))) === Some(Seq(1, "b", null)))
  }

  test("descending: a delete wins when its value is the smallest, and loses otherwise") {
    assert(merge(descending, kv(1, "+I", row(1, "a", 5L)), kv(2, "-D", row(1, "a", 4L))) === None)
    assert(merge(descending, kv(1, "+I", row(1, "a", 5L)), kv(2, "-D", row(1, "a", 6L))) === Some(Seq(1, "a", 5L)))
  }

  test("a bad sort order is refused naming the table and the option") {
    val e = intercept[BadInputException](merge(Map("sequence.field.sort-order" -> "down")))
    assert(e.getMessage === "Table db.t: Invalid value 'down' for option 'sequence.field.sort-order': expected one of " +
      "ascending, descending")
  }
}
