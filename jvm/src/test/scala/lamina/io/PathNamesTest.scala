package lamina.io

import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

/** [[PathNames]]: a name joined under a directory stays one segment of it, or is refused naming it. */
class PathNamesTest extends AnyFunSuite {
  private val dir = PathNames.of("/w/db.db/t/branch")

  test("plain names, including dots inside and percent signs, become one child segment") {
    Seq("branch-dev", "data-1.parquet", "...x", "%2e%2e%2fsib", "é ü 名").foreach { n =>
      val p = PathNames.child(dir, n)
      assert(p.getParent === dir && p.getName === n)
    }
  }

  test("traversal, absolute, separator, scheme, control and over-long names are refused with the reason") {
    val cases = Seq(
      "" -> "it is empty",
      "." -> "it names a directory itself",
      ".." -> "it names a directory itself",
      "../../sib" -> "it must not contain '/'",
      "/etc" -> "it must not contain '/'",
      "a\\b" -> "it must not contain '\\'",
      "s3:x" -> "it must not contain ':'",
      "a\nb" -> "it must not contain control characters",
      "a\u0000b" -> "it must not contain control characters",
      ("x" * 256) -> "it takes 256 bytes in UTF-8, more than the 255")
    cases.foreach { case (name, why) =>
      val e = intercept[BadInputException](PathNames.child(dir, name, "branch"))
      assert(e.getMessage.startsWith(s"Invalid branch name '${PathNames.printable(name)}' under $dir: $why"), name)
    }
  }

  test("descendant checks every segment") {
    assert(PathNames.descendant(dir, Seq("p=1", "q=2")) === new Path("/w/db.db/t/branch/p=1/q=2"))
    intercept[BadInputException](PathNames.descendant(dir, Seq("p=1", "..")))
  }
}
