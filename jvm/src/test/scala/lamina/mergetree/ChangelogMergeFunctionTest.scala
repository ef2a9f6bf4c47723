package lamina.mergetree

import scala.collection.mutable.ArrayBuffer

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.MergeTestRows._
import lamina.mergetree.function.MergeFunctions
import lamina.types._

class ChangelogMergeFunctionTest extends AnyFunSuite {
  private val fields = Seq(field(0, "k", IntType(false)), field(1, "v", VarCharType(VarCharType.MaxLength)))

  private def engine(name: String) = MergeFunctions.create(fields, Seq("k"), Map("merge-engine" -> name), "db.t")()

  /** The changelog of one key: `lookedUp` is what the lookup finds, `records` (level, record) in sequence
   *  order; with `feed`, the looked-up row is merged in. Returns (changelog, merged result). */
  private def run(mode: CompactionChangelog, lookedUp: Option[KeyValue], records: Seq[(Int, KeyValue)],
      engineName: String = "deduplicate", feed: Boolean = false,
      equal: (String, String) => Boolean = _ == _): (Seq[(String, Seq[Any])], Option[Seq[Any]]) = {
    val out = ArrayBuffer.empty[(String, Seq[Any])]
    val looking = new LookupMergeFunction(engine(engineName), _ => lookedUp, feed)
    val mf = new ChangelogMergeFunction(looking, mode,
      (a, b) => equal(a.getUTF8String(1).toString, b.getUTF8String(1).toString),
      (kind, kv) => out += ((RowKind.shortString(kind), values(kv.value, fields))), () => looking.lookedUp)
    mf.reset()
    records.foreach { case (level, kv) => mf.atLevel(level); mf.add(kv) }
    val result = mf.result().map(r => values(r.value, fields))
    (out.toSeq, result)
  }

  private val lookup = CompactionChangelog.Lookup(firstRow = false, dropsEqualPairs = false)
  private val old = Some(kv(1, "+I", row(1, "a")))

  test("lookup: before is the looked-up row, or the newest input row above level 0") {
    assert(run(lookup, old, Seq(0 -> kv(5, "+I", row(1, "b"))))._1 ===
      Seq("-U" -> Seq(1, "a"), "+U" -> Seq(1, "b")))
    assert(run(lookup, None, Seq(0 -> kv(5, "+I", row(1, "b"))))._1 === Seq("+I" -> Seq(1, "b")))
    assert(run(lookup, old, Seq(3 -> kv(3, "+I", row(1, "c")), 0 -> kv(5, "+I", row(1, "b"))))._1 ===
      Seq("-U" -> Seq(1, "c"), "+U" -> Seq(1, "b")))
    assert(run(lookup, old, Seq(0 -> kv(5, "-D", row(1, null))))._1 === Seq("-D" -> Seq(1, "a")))
    // a key gone before (its newest row above level 0 is a delete) comes back as new
    assert(run(lookup, old, Seq(2 -> kv(3, "-D", row(1, null)), 0 -> kv(5, "+I", row(1, "b"))))._1 ===
      Seq("+I" -> Seq(1, "b")))
    // no level-0 record: the key did not change
    assert(run(lookup, old, Seq(3 -> kv(3, "+I", row(1, "c"))))._1 === Seq.empty)
    // deleted and never there
    assert(run(lookup, None, Seq(0 -> kv(5, "-D", row(1, null))))._1 === Seq.empty)
  }

  test("lookup: equal pairs are dropped with row-deduplicate only; first-row emits +I for a new key only") {
    val same = Seq(0 -> kv(5, "+I", row(1, "a")))
    assert(run(lookup, old, same)._1.size === 2)
    assert(run(lookup.copy(dropsEqualPairs = true), old, same)._1 === Seq.empty)
    assert(run(lookup.copy(dropsEqualPairs = true), old, Seq(0 -> kv(5, "+I", row(1, "A"))),
      equal = _.equalsIgnoreCase(_))._1 === Seq.empty)
    val firstRow = CompactionChangelog.Lookup(firstRow = true, dropsEqualPairs = false)
    assert(run(firstRow, old, Seq(0 -> kv(5, "+I", row(1, "b"))), "first-row", feed = true) ===
      (Seq.empty, Some(Seq(1, "a"))))
    assert(run(firstRow, None, Seq(0 -> kv(5, "+I", row(1, "b"))), "first-row")._1 === Seq("+I" -> Seq(1, "b")))
  }

  test("a fed looked-up row is merged as the oldest record") {
    val (changes, result) = run(lookup, Some(kv(1, "+I", row(1, "a"))), Seq(0 -> kv(5, "+I", row(1, null))),
      "partial-update", feed = true)
    assert(result === Some(Seq(1, "a")))
    assert(changes === Seq("-U" -> Seq(1, "a"), "+U" -> Seq(1, "a")))
  }

  test("full-compaction: before is the top level's row; equal pairs are always dropped") {
    val full = CompactionChangelog.Full(firstRow = false, maxLevel = 5)
    assert(run(full, None, Seq(5 -> kv(1, "+I", row(1, "a")), 0 -> kv(5, "+I", row(1, "b"))))._1 ===
      Seq("-U" -> Seq(1, "a"), "+U" -> Seq(1, "b")))
    assert(run(full, None, Seq(5 -> kv(1, "+I", row(1, "a")), 2 -> kv(3, "+I", row(1, "a"))))._1 === Seq.empty)
    assert(run(full, None, Seq(3 -> kv(3, "+I", row(1, "b"))))._1 === Seq("+I" -> Seq(1, "b")))
    assert(run(full, None, Seq(5 -> kv(1, "+I", row(1, "a")), 0 -> kv(5, "-D", row(1, null))))._1 ===
      Seq("-D" -> Seq(1, "a")))
  }
}
