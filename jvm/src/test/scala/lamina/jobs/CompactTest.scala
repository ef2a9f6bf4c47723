package lamina.jobs

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

class CompactTest extends AnyFunSuite {

  test("--catalog-conf options reach the job's metastore options") {
    val a = Compact.parse(Seq("--warehouse", "/w", "--table", "db.t", "--catalog-conf", "metastore=jdbc",
        "--catalog-conf", "uri=jdbc:sqlite:/w/c.db?x=1"))
    assert(a.catalogConf == Map("metastore" -> "jdbc", "uri" -> "jdbc:sqlite:/w/c.db?x=1"))
    assert(Compact.parse(Seq("--warehouse", "/w", "--table", "db.t")).catalogConf.isEmpty)
  }

  test("a --catalog-conf without key=value is refused") {
    val e = intercept[BadInputException](
      Compact.parse(Seq("--warehouse", "/w", "--table", "db.t", "--catalog-conf", "metastore")))
    assert(e.getMessage == "--catalog-conf needs key=value, not 'metastore'")
  }

  test("--progress asks for progress lines; without it there are none") {
    assert(Compact.parse(Seq("--warehouse", "/w", "--table", "db.t", "--progress")).progress)
    assert(!Compact.parse(Seq("--warehouse", "/w", "--table", "db.t")).progress)
  }
}
