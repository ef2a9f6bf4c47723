package lamina.mergetree

/** Runs to merge into one new run at `outputLevel`. Invariant: `runs` is a prefix of the runs the
 *  strategy was given, and `outputLevel` is not 0. */
final case class CompactUnit(outputLevel: Int, runs: Seq[SortedRun])

/** Paimon's universal compaction (after RocksDB's) as pure functions on the list of sorted runs.
 *
 *  Runs are given as [[Levels.runs]] lists them, newest first: level 0 first (newest first within
 *  level 0), then levels ascending, so the last run is the oldest and largest. A level above 0
 *  usually holds one run, and more where files' key ranges touch ([[Levels]]). A pick, in this order:
 *  1. size amplification: when there are at least `numRunCompactionTrigger` runs and the runs other
 *     than the last one add up to more than `maxSizeAmp` percent of the last one, compact everything
 *     to the top level;
 *  2. size ratio: when there are at least `numRunCompactionTrigger` runs, grow a candidate prefix from
 *     the first run while the next run's size is at most the prefix's size times
 *     (100 + `sizeRatio`) percent; compact the prefix if it has two runs or more;
 *  3. run count: when there are more than `numRunCompactionTrigger` runs, start from the smallest
 *     prefix that brings the count back to the trigger and grow it as in 2.
 *  The output level is the level just below the next run left out (never level 0: the prefix is then
 *  extended up to the first run above level 0), or the top level when every run is taken. */
object UniversalCompaction {

  def pick(
      numLevels: Int,
      runs: Seq[SortedRun],
      maxSizeAmp: Int,
      sizeRatio: Int,
      numRunCompactionTrigger: Int): Option[CompactUnit] = {
    require(numLevels >= 2, s"num-levels must be at least 2, got $numLevels")
    val maxLevel = numLevels - 1
    pickForSizeAmp(maxLevel, runs, maxSizeAmp, numRunCompactionTrigger)
      .orElse(pickForSizeRatio(maxLevel, runs, sizeRatio, numRunCompactionTrigger))
      .orElse {
        if (runs.size > numRunCompactionTrigger) {
          val candidateCount = runs.size - numRunCompactionTrigger + 1
          growBySizeRatio(maxLevel, runs, sizeRatio, candidateCount)
        } else None
      }
  }

  /** Everything to the top level; None when there is nothing or only a single run already on top. */
  def full(numLevels: Int, runs: Seq[SortedRun]): Option[CompactUnit] = {
    val maxLevel = numLevels - 1
    if (runs.isEmpty) None
    else if (runs.size == 1 && runs.head.level == maxLevel) None
    else Some(CompactUnit(maxLevel, runs))
  }

  /** Lookup compaction's forced pick (Paimon's `forcePickL0`): every level-0 run, grown by size ratio
   *  as in 2 (a level-1 run is taken whatever its size), into the level below the next run left out;
   *  None when level 0 is empty. */
  def forcePickLevel0(numLevels: Int, runs: Seq[SortedRun], sizeRatio: Int): Option[CompactUnit] = {
    val level0 = runs.takeWhile(_.level == 0).size
    if (level0 == 0) None
    else {
      var count = level0
      var size = runs.iterator.take(count).map(_.totalSize).sum
      var stop = false
      while (!stop && count < runs.size) {
        val next = runs(count)
        if (size * (100.0 + sizeRatio) / 100.0 < next.totalSize && next.level > 1) stop = true
        else {
          size += next.totalSize
          count += 1
        }
      }
      Some(createUnit(runs, numLevels - 1, count))
    }
  }

  private def pickForSizeAmp(
      maxLevel: Int,
      runs: Seq[SortedRun],
      maxSizeAmp: Int,
      trigger: Int): Option[CompactUnit] = {
    if (runs.size < trigger || runs.size < 2) None
    else {
      val candidateSize = runs.init.iterator.map(_.totalSize).sum
      val earliestRunSize = runs.last.totalSize
      // Integer arithmetic as in Paimon: additional size as a percentage of the oldest run.
      if (BigInt(candidateSize) * 100 > BigInt(maxSizeAmp) * earliestRunSize) Some(CompactUnit(maxLevel, runs))
      else None
    }
  }

  private def pickForSizeRatio(
      maxLevel: Int,
      runs: Seq[SortedRun],
      sizeRatio: Int,
      trigger: Int): Option[CompactUnit] =
    if (runs.size < trigger) None else growBySizeRatio(maxLevel, runs, sizeRatio, 1)

  private def growBySizeRatio(
      maxLevel: Int,
      runs: Seq[SortedRun],
      sizeRatio: Int,
      initialCount: Int): Option[CompactUnit] = {
    var candidateCount = initialCount
    var candidateSize = runs.iterator.take(candidateCount).map(_.totalSize).sum
    var stop = false
    while (!stop && candidateCount < runs.size) {
      val next = runs(candidateCount)
      if (candidateSize * (100.0 + sizeRatio) / 100.0 < next.totalSize) stop = true
      else {
        candidateSize += next.totalSize
        candidateCount += 1
      }
    }
    if (candidateCount > 1) Some(createUnit(runs, maxLevel, candidateCount)) else None
  }

  private def createUnit(runs: Seq[SortedRun], maxLevel: Int, count: Int): CompactUnit = {
    var runCount = count
    var outputLevel =
      if (runCount == runs.size) maxLevel
      else math.max(0, runs(runCount).level - 1)
    if (outputLevel == 0) {
      // Never write level 0: take further runs up to and including the first one above level 0.
      var i = runCount
      var found = false
      while (!found && i < runs.size) {
        val next = runs(i)
        runCount += 1
        if (next.level != 0) {
          outputLevel = next.level
          found = true
        }
        i += 1
      }
    }
    if (runCount == runs.size) outputLevel = maxLevel
    CompactUnit(outputLevel, runs.take(runCount))
  }
}
