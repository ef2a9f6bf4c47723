package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.table.options.CoreOptions

class MergeTreeOptionsTest extends AnyFunSuite {
  test("defaults") {
    val o = Map.empty[String, String]
    assert(MergeTreeOptions.MergeEngine.getOrDefault(o) == "deduplicate")
    assert(MergeTreeOptions.WriteBufferSize.getOrDefault(o) == 256L * 1024 * 1024)
    assert(MergeTreeOptions.WriteBufferSpillable.getOrDefault(o))
    assert(!MergeTreeOptions.WriteOnly.getOrDefault(o))
    assert(MergeTreeOptions.CompactionMaxSizeAmplificationPercent.getOrDefault(o) == 200)
    assert(MergeTreeOptions.CompactionSizeRatio.getOrDefault(o) == 1)
    assert(MergeTreeOptions.numSortedRunCompactionTrigger(o) == 5)
    assert(MergeTreeOptions.numSortedRunStopTrigger(o) == 8)
    assert(MergeTreeOptions.numLevels(o) == 6)
    assert(MergeTreeOptions.ChangelogProducer.getOrDefault(o) == "none")
  }

  test("stop trigger and levels follow the compaction trigger unless set") {
    val o = Map("num-sorted-run.compaction-trigger" -> "3")
    assert(MergeTreeOptions.numSortedRunStopTrigger(o) == 6)
    assert(MergeTreeOptions.numLevels(o) == 4)
    assert(MergeTreeOptions.numSortedRunStopTrigger(o + ("num-sorted-run.stop-trigger" -> "10")) == 10)
    assert(MergeTreeOptions.numLevels(o + ("num-levels" -> "3")) == 3)
  }

  test("registered keys are accepted by tables; bad values are rejected naming the option") {
    MergeTreeOptions.register()
    MergeTreeOptions.register()
    CoreOptions.validate(Map("merge-engine" -> "partial-update", "write-buffer-size" -> "64 mb",
      "fields.a.aggregate-function" -> "sum", "fields.a,b.sequence-group" -> "c"), "db.t")
    val e = intercept[BadInputException](CoreOptions.validate(Map("changelog-producer" -> "bogus"), "db.t"))
    assert(e.getMessage == "Invalid value 'bogus' for option 'changelog-producer': expected one of none, input, lookup, full-compaction")
    assert(MergeTreeOptions.all.forall(d => CoreOptions.find(d.key).contains(d)))
  }
}
