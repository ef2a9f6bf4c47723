package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.{KeyValue, MergeFunction}
import lamina.mergetree.MergeTestRows._
import lamina.types._

class MergedRowsMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "n", BigIntType()))
  private val sum = Map("merge-engine" -> "aggregation", "fields.n.aggregate-function" -> "sum")
  private def create(options: Map[String, String]) = MergeFunctions.create(fields, Seq("k"), options, "db.t")()

  /** Merges (level, record) pairs, telling each record's level. */
  private def merge(mf: MergeFunction, records: Seq[(Int, KeyValue)]): Seq[Any] = {
    mf.reset()
    records.foreach { case (level, kv) => mf.atLevel(level); mf.add(kv) }
    values(mf.result().get.value, fields)
  }

  private val history = Seq(
    5 -> kv(1, "+I", row(1, 5L)), // an older whole row, left in its file by lookup compaction
    4 -> kv(2, "+I", row(1, 8L)), // the newest whole row above level 0 (5 + 3)
    0 -> kv(3, "+I", row(1, 2L)),
    0 -> kv(4, "+I", row(1, 1L)))

  test("the lookup producer without deletion vectors merges the newest row above level 0 with level 0") {
    val mf = create(sum + ("changelog-producer" -> "lookup"))
    assert(mf.wantsLevel)
    assert(merge(mf, history) === Seq(1, 11L))
    // only rows above level 0: the newest
    assert(merge(mf, history.take(2)) === Seq(1, 8L))
    // records of unknown level count as level 0: all merge
    mf.reset()
    history.foreach { case (_, r) => mf.add(r) }
    assert(values(mf.result().get.value, fields) === Seq(1, 16L))
  }

  test("other tables merge every record: no producer, deletion vectors, or an engine that ignores older rows") {
    for (options <- Seq(sum, sum ++ Map("changelog-producer" -> "lookup", "deletion-vectors.enabled" -> "true"),
        Map("changelog-producer" -> "lookup"), sum + ("changelog-producer" -> "input")))
      assert(!create(options).wantsLevel, options)
    assert(merge(create(sum), history) === Seq(1, 16L))
  }
}
