package lamina.table

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.io.FileIO

class IdentifiersTest extends AnyFunSuite {
  private def refused(name: String, what: String = "table", suffix: String = ""): String =
    intercept[BadInputException](Identifiers.check(name, what, suffix)).getMessage

  test("plain names pass, unchanged") {
    Seq("t", "events_2024", "a b", "naïve", "x-y", "a%20b", "a#b", "x" * 255).foreach(n =>
      assert(Identifiers.check(n, "table") == n))
  }

  test("every way out of one path segment is refused, naming the name") {
    assert(refused("..") == "Invalid table name '..': it must not start with '.'")
    assert(refused(".") == "Invalid table name '.': it must not start with '.'")
    assert(refused("../../etc") == "Invalid table name '../../etc': it must not contain '/'")
    assert(refused("/etc/passwd") == "Invalid table name '/etc/passwd': it must not contain '/'")
    assert(refused("a\\b") == "Invalid table name 'a\\b': it must not contain '\\'")
    assert(refused("hdfs:x") == "Invalid table name 'hdfs:x': it must not contain ':'")
    assert(refused("t$snapshots") == "Invalid table name 't$snapshots': it must not contain '$'")
    assert(
      refused("a\u0000b") == "Invalid table name 'a\\u0000b': it must not contain control characters (NUL, newline, tab, ...)")
    assert(refused("a\nb") == "Invalid table name 'a\\nb': it must not contain control characters (NUL, newline, tab, ...)")
    assert(refused("") == "The table name must not be empty")
    assert(refused("  ") == "The table name must not be empty")
    assert(refused(null) == "The table name must not be empty")
  }

  test("the length counts UTF-8 bytes with the directory suffix") {
    assert(Identifiers.check("d" * 252, "database", ".db") == "d" * 252)
    assert(refused("d" * 253, "database", ".db").endsWith(
        "its directory name takes 256 bytes in UTF-8, more than the 255 a file name may have"))
    // two bytes a character
    assert(refused("é" * 128).contains("takes 256 bytes"))
  }

  test("the warehouse checks names wherever they become paths") {
    val root = Files.createTempDirectory("identifiers")
    val wh = Warehouse(new Path(root.toUri), FileIO(new Configuration()))
    val escapes = Seq("..", "../x", "/abs", "a:b", "a\u0000b")
    escapes.foreach { n =>
      intercept[BadInputException](wh.databasePath(n))
      intercept[BadInputException](wh.tablePath("db", n))
      intercept[BadInputException](wh.databaseExists(n))
      intercept[BadInputException](wh.tableExists("db", n))
      intercept[BadInputException](wh.listTables(n))
      intercept[BadInputException](wh.dropDatabase(n))
      intercept[BadInputException](wh.dropTable("db", n))
    }
    assert(wh.listDatabases().isEmpty)
    assert(Files.list(root.getParent).noneMatch(p => p.getFileName.toString == "x.db"))
  }
}
