package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

/** [[TableCapabilities]]: the questions reads, writes and compactions ask, answered from options alone. */
class TableCapabilitiesTest extends AnyFunSuite {
  private def caps(options: (String, String)*): TableCapabilities =
    TableCapabilities.of(options.toMap, primaryKey = true, "db.t")

  test("defaults: deduplicate, no vectors, level 0 read and merged, no lookup, writes visible at once") {
    val c = caps()
    assert((c.mergeEngine, c.deletionVectors, c.skipsLevel0, c.readsWithoutMerging, c.looksUp) ===
      ((MergeEngine.Deduplicate, false, false, false, false)))
    assert(!c.compactionMakesWritesVisible)
  }

  test("deletion vectors: read without merging and without level 0, compacted by lookup, unless merge-on-read") {
    val c = caps("deletion-vectors.enabled" -> "true")
    assert(c.readsWithoutMerging && c.skipsLevel0 && c.looksUp && c.compactionMakesWritesVisible)
    val m = caps("deletion-vectors.enabled" -> "true", "deletion-vectors.merge-on-read" -> "true")
    assert(!m.readsWithoutMerging && !m.skipsLevel0 && m.looksUp && !m.compactionMakesWritesVisible)
    assert(!caps("deletion-vectors.enabled" -> "true", "write-only" -> "true").compactionMakesWritesVisible)
  }

  test("first-row skips level 0 and must compact after each write, write-only or not") {
    val c = caps("merge-engine" -> "first-row", "write-only" -> "true")
    assert(c.skipsLevel0 && !c.readsWithoutMerging && !c.looksUp && c.compactionMakesWritesVisible)
  }

  test("the lookup changelog producer compacts by lookup; append tables never look up nor compact to become visible") {
    assert(caps("changelog-producer" -> "lookup").looksUp)
    assert(!TableCapabilities.of(Map("merge-engine" -> "first-row"), primaryKey = false, "db.a").compactionMakesWritesVisible)
    assert(!TableCapabilities.of(Map("deletion-vectors.enabled" -> "true"), primaryKey = false, "db.a").looksUp)
  }

  test("a bad merge engine names the table") {
    val e = intercept[BadInputException](caps("merge-engine" -> "newest"))
    assert(e.getMessage.contains("db.t"))
  }
}
