package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables

class UniversalCompactionTest extends AnyFunSuite {
  private var fileNo = 0
  private def run(level: Int, size: Long): SortedRun = {
    fileNo += 1
    SortedRun(level, IndexedSeq(TestTables.file(s"data-$fileNo.parquet").copy(fileSize = size, level = level)))
  }
  private def l0(sizes: Long*): Seq[SortedRun] = sizes.map(run(0, _))

  private def pick(runs: Seq[SortedRun], numLevels: Int = 6, maxSizeAmp: Int = 200, sizeRatio: Int = 1,
      trigger: Int = 5): Option[(Int, Int)] =
    UniversalCompaction.pick(numLevels, runs, maxSizeAmp, sizeRatio, trigger).map(u => (u.outputLevel, u.runs.size))

  test("fewer runs than the trigger: nothing to do") {
    assert(pick(l0(1, 1, 1, 1)).isEmpty)
    assert(pick(Nil).isEmpty)
  }

  test("size amplification: newer runs larger than 200% of the oldest compact everything to the top") {
    val runs = l0(100, 100, 100, 100) :+ run(5, 100)
    assert(UniversalCompaction.pick(6, runs, 200, 1, 5) == Some(CompactUnit(5, runs)))
  }

  test("size amplification is a strict threshold") {
    assert(pick(l0(10, 190) :+ run(5, 100), trigger = 3).isEmpty)
    assert(pick(l0(10, 191) :+ run(5, 100), trigger = 3) == Some((5, 3)))
  }

  test("size ratio picks the prefix of similar sizes; output is the level below the first run left out") {
    val runs = l0(1, 1, 1, 1) :+ run(5, 1000)
    assert(UniversalCompaction.pick(6, runs, 200, 1, 5) == Some(CompactUnit(4, runs.take(4))))
  }

  test("size ratio: the ratio option widens what counts as similar") {
    val runs = l0(100, 105) :+ run(5, 100000)
    assert(pick(runs, sizeRatio = 1, trigger = 3).isEmpty)
    assert(pick(runs, sizeRatio = 10, trigger = 3) == Some((4, 2)))
  }

  test("size ratio taking every run writes to the top level") {
    assert(pick(l0(1, 1, 1, 1, 1), maxSizeAmp = 1000) == Some((5, 5)))
  }

  test("output is never level 0: the prefix grows up to the first run above level 0") {
    val runs = l0(1, 1, 100) ++ Seq(run(3, 1000), run(5, 10000))
    assert(UniversalCompaction.pick(6, runs, 200, 1, 3) == Some(CompactUnit(3, runs.take(4))))
  }

  test("level-0 runs only, prefix left out is level 0: everything goes to the top") {
    val runs = l0(1, 1, 100)
    assert(pick(runs, maxSizeAmp = 100000, trigger = 3) == Some((5, 3)))
  }

  test("run count: above the trigger, the smallest prefix that brings the count back is compacted") {
    val runs = Seq(run(0, 1), run(1, 10), run(2, 100), run(3, 1000), run(4, 10000), run(5, 100000))
    assert(UniversalCompaction.pick(6, runs, 200, 1, 5) == Some(CompactUnit(1, runs.take(2))))
    // At the trigger exactly, sizes this far apart are left alone.
    assert(pick(runs.drop(1)).isEmpty)
  }

  test("run count: the candidate prefix still grows by size ratio") {
    val runs = Seq(run(0, 1), run(1, 10), run(2, 11), run(3, 1000), run(4, 10000), run(5, 100000))
    // Starts from 2 runs (size 11); 11 <= 11 * 1.01 joins; 1000 does not. Output: level of run 4 - 1.
    assert(UniversalCompaction.pick(6, runs, 200, 1, 5) == Some(CompactUnit(2, runs.take(3))))
  }

  test("size ratio prefix ending on level 0 grows to the next level above 0") {
    val runs = Seq(run(0, 1), run(0, 1), run(0, 3), run(2, 1000), run(3, 10000), run(5, 100000))
    assert(UniversalCompaction.pick(6, runs, 200, 1, 5) == Some(CompactUnit(2, runs.take(4))))
  }

  test("full compaction") {
    assert(UniversalCompaction.full(6, Nil).isEmpty)
    assert(UniversalCompaction.full(6, Seq(run(5, 10))).isEmpty)
    val lonely = Seq(run(3, 10))
    assert(UniversalCompaction.full(6, lonely) == Some(CompactUnit(5, lonely)))
    val runs = l0(1) ++ Seq(run(5, 10))
    assert(UniversalCompaction.full(6, runs) == Some(CompactUnit(5, runs)))
  }
}

class ForcePickLevel0Test extends AnyFunSuite {
  private var fileNo = 0
  private def run(level: Int, size: Long): SortedRun = {
    fileNo += 1
    SortedRun(level, IndexedSeq(TestTables.file(s"data-$fileNo.parquet").copy(fileSize = size, level = level)))
  }

  private def force(runs: Seq[SortedRun]): Option[(Int, Int)] =
    UniversalCompaction.forcePickLevel0(6, runs, 1).map(u => (u.outputLevel, u.runs.size))

  test("no level 0: nothing; level 0 alone: everything to the top") {
    assert(force(Seq(run(5, 100))).isEmpty)
    assert(force(Nil).isEmpty)
    assert(force(Seq(run(0, 1), run(0, 1))) === Some((5, 2)))
  }

  test("level 0 goes to the level below the next run left out, keeping the large runs for lookups") {
    assert(force(Seq(run(0, 1), run(5, 1000))) === Some((4, 1)))
    assert(force(Seq(run(0, 1), run(0, 2), run(3, 1000), run(5, 5000))) === Some((2, 2)))
  }

  test("a similar-sized next run joins; a level-1 run joins whatever its size (level 0 never is the output)") {
    assert(force(Seq(run(0, 10), run(4, 10), run(5, 1000))) === Some((4, 2)))
    assert(force(Seq(run(0, 1), run(1, 1000), run(5, 5000))) === Some((4, 2)))
  }
}
