package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

class MergeEngineTest extends AnyFunSuite {
  test("every engine is what the option accepts, by its name in any case") {
    MergeEngine.All.foreach { e =>
      assert(MergeEngine.of(Map(CoreOptions.MergeEngine.key -> e.name), "db.t") == e)
      assert(MergeEngine.of(Map(CoreOptions.MergeEngine.key -> (" " + e.name.toUpperCase + " ")), "db.t") == e)
    }
    assert(MergeEngine.All.map(_.name) == Seq("deduplicate", "partial-update", "aggregation", "first-row"))
  }

  test("a table without the option deduplicates") {
    assert(MergeEngine.of(Map.empty, "db.t") == MergeEngine.Deduplicate)
    assert(MergeEngine.Default == MergeEngine.Deduplicate)
  }

  test("an unknown engine fails naming the table and the accepted names") {
    val e = intercept[BadInputException](MergeEngine.of(Map(CoreOptions.MergeEngine.key -> "lsm"), "db.t"))
    assert(e.getMessage == "Table db.t: Invalid value 'lsm' for option 'merge-engine': " +
      "expected one of deduplicate, partial-update, aggregation, first-row")
  }
}
