package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.format.BinaryRowCodec
import lamina.table.TestTables
import lamina.table.manifest.DataFileMeta
import lamina.types.IntType

/** [[Levels]] on synthetic file metadata: which files form which sorted run. */
class LevelsTest extends AnyFunSuite {
  private val keyTypes = Seq(IntType(nullable = false))
  private val order = new FileKeyOrder(keyTypes)

  private def key(k: Int) = BinaryRowCodec.serialize(InternalRow(k), keyTypes)
  private def file(name: String, level: Int, lo: Int, hi: Int, seq: Long = 0L): DataFileMeta =
    TestTables.file(name, level = level).copy(minKey = key(lo), maxKey = key(hi),
      minSequenceNumber = seq, maxSequenceNumber = seq)

  private def names(levels: Levels) = levels.runs.map(r => (r.level, r.files.map(_.fileName)))

  test("each level-0 file is a run, newest first; a level above 0 with disjoint files is one run") {
    val levels = Levels(Seq(
        file("l5-b", 5, 20, 29), file("l0-old", 0, 1, 50, seq = 1), file("l5-a", 5, 0, 9),
        file("l0-new", 0, 1, 50, seq = 9), file("l2", 2, 0, 100)), order)
    levels.validate()
    assert(names(levels) == IndexedSeq(
      0 -> IndexedSeq("l0-new"), 0 -> IndexedSeq("l0-old"), 2 -> IndexedSeq("l2"), 5 -> IndexedSeq("l5-a", "l5-b")))
    assert(levels.runsOldestFirst.map(_.files.head.fileName) == IndexedSeq("l5-a", "l2", "l0-old", "l0-new"))
  }

  test("overlapping level-0 files stay separate runs") {
    val levels = Levels(Seq(file("a", 0, 0, 10, seq = 1), file("b", 0, 5, 15, seq = 2)), order)
    levels.validate()
    assert(levels.runs.map(_.files.size) == IndexedSeq(1, 1))
  }

  test("files of one level whose key ranges touch or overlap start the level's next run") {
    val touching = Levels(Seq(file("a", 3, 0, 10), file("b", 3, 10, 20), file("c", 3, 21, 30)), order)
    touching.validate()
    // runs of one level: descending by first key, so oldest-first reading keeps them in key order
    assert(names(touching) == IndexedSeq(3 -> IndexedSeq("b", "c"), 3 -> IndexedSeq("a")))
    val overlapping = Levels(Seq(file("a", 3, 0, 50), file("b", 3, 10, 20), file("c", 3, 30, 60)), order)
    overlapping.validate()
    assert(overlapping.runs.size == 3)
  }

  test("files added and removed: the runs are recomputed from the files alone") {
    val base = Seq(file("a", 1, 0, 9), file("b", 1, 10, 19))
    assert(Levels(base, order).runs.size == 1)
    val added = base :+ file("c", 1, 15, 25)
    assert(Levels(added, order).runs.size == 2)
    val removed = added.filterNot(_.fileName == "b")
    assert(names(Levels(removed, order)) == IndexedSeq(1 -> IndexedSeq("a", "c")))
    assert(Levels(Seq.empty, order).runs.isEmpty)
  }

  test("without level 0 keeps the higher levels' runs") {
    val levels = Levels(Seq(file("x", 0, 0, 1, seq = 5), file("y", 4, 0, 1)), order).withoutLevel0
    assert(names(levels) == IndexedSeq(4 -> IndexedSeq("y")))
  }

  test("validate names the file that breaks the invariant") {
    val a = file("a", 1, 0, 10)
    val b = file("b", 1, 10, 20)
    val bad = Levels(Seq(a), order)
    val forged = classOf[Levels].getDeclaredConstructors.head
    forged.setAccessible(true)
    def levelsOf(runs: SortedRun*) = forged.newInstance(runs.toIndexedSeq, order).asInstanceOf[Levels]
    bad.validate()
    val touching = intercept[IllegalStateException](levelsOf(SortedRun(1, IndexedSeq(a, b))).validate())
    assert(touching.getMessage == "file b does not start above the max key of a in their level-1 run")
    val twice = intercept[IllegalStateException](levelsOf(SortedRun(1, IndexedSeq(a)), SortedRun(1, IndexedSeq(a))).validate())
    assert(twice.getMessage == "file a is in more than one sorted run")
    val wrongLevel = intercept[IllegalStateException](levelsOf(SortedRun(2, IndexedSeq(a))).validate())
    assert(wrongLevel.getMessage == "file a of level 1 is in a run of level 2")
  }
}
