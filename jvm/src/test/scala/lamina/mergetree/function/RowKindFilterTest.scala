package lamina.mergetree.function

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.mergetree.RowKind

class RowKindFilterTest extends AnyFunSuite {
  private val kinds = Seq(RowKind.Insert, RowKind.UpdateBefore, RowKind.UpdateAfter, RowKind.Delete)

  private def kept(options: Map[String, String]): Seq[String] =
    kinds.filter(RowKindFilter.of(options, "db.t").keeps).map(RowKind.shortString)

  test("ignore-update-before drops -U only; ignore-delete drops both retracts") {
    assert(kept(Map.empty) === Seq("+I", "-U", "+U", "-D"))
    assert(kept(Map("ignore-update-before" -> "true")) === Seq("+I", "+U", "-D"))
    assert(kept(Map("ignore-delete" -> "true")) === Seq("+I", "+U"))
    assert(kept(Map("ignore-delete" -> "true", "ignore-update-before" -> "true")) === Seq("+I", "+U"))
    assert(kept(Map("ignore-update-before" -> "false")) === Seq("+I", "-U", "+U", "-D"))
  }

  test("a bad value is refused naming the table and the option") {
    val e = intercept[BadInputException](RowKindFilter.of(Map("ignore-update-before" -> "yes"), "db.t"))
    assert(e.getMessage === "Table db.t: Invalid value 'yes' for option 'ignore-update-before': expected true or false")
  }
}
