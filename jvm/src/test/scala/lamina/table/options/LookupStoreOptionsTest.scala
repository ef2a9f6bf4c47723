package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup.LookupOptions

class LookupStoreOptionsTest extends AnyFunSuite {

  test("every lookup store option is a table option with the library's default and doc") {
    LookupStoreOptions.register()
    LookupOptions.definitions.foreach { d =>
      val o = CoreOptions.find(d.key).getOrElse(fail(s"${d.key} is not registered"))
      assert(o.default.contains(d.default))
      assert(o.doc == d.doc)
    }
  }

  test("tables accept good lookup values and reject bad ones naming the option") {
    LookupStoreOptions.register()
    CoreOptions.validate(Map("lookup.local-file-type" -> "hash", "cache-page-size" -> "4 kb",
      "lookup.cache.high-priority-pool-ratio" -> "0.5"), "db.t")
    val e = intercept[BadInputException](CoreOptions.validate(Map("lookup.local-file-type" -> "btree"), "db.t"))
    assert(e.getMessage.contains("'lookup.local-file-type'") && e.getMessage.contains("btree"))
    val e2 = intercept[BadInputException](CoreOptions.validate(Map("lookup.bloom-filter.fpp" -> "2"), "db.t"))
    assert(e2.getMessage.contains("'lookup.bloom-filter.fpp'"))
  }
}
