package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

class MergeEngineTest extends AnyFunSuite {
  test("every engine parses from its name, in any case, and is what the option accepts") {
    MergeEngine.All.foreach { e =>
      assert(MergeEngine.parse(e.name).contains(e))
      assert(MergeEngine.parse(" " + e.name.toUpperCase + " ").contains(e))
      assert(MergeEngine.of(Map(MergeEngine.Key -> e.name), "db.t") == e)
    }
    assert(MergeTreeOptions.MergeEngines == Seq("deduplicate", "partial-update", "aggregation", "first-row"))
    assert(MergeEngine.parse("lsm").isEmpty)
  }

  test("a table without the option deduplicates") {
    assert(MergeEngine.of(Map.empty, "db.t") == MergeEngine.Deduplicate)
  }

  test("an unknown engine fails naming the table and the accepted names") {
    val e = intercept[BadInputException](MergeEngine.of(Map(MergeEngine.Key -> "lsm"), "db.t"))
    assert(e.getMessage.startsWith("Table db.t: "))
    assert(e.getMessage.contains("deduplicate, partial-update, aggregation, first-row"))
  }
}
