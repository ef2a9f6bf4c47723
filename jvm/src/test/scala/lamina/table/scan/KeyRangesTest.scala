package lamina.table.scan

import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.KeyRange
import lamina.table.predicate._

class KeyRangesTest extends AnyFunSuite {

  private def of(ps: Predicate*) = KeyRanges.of(ps, "id")

  test("comparisons, equality and IN on the key narrow its range; together they intersect") {
    assert(of(GreaterThanOrEqual("id", 5L), LessThanOrEqual("id", 9L)).contains(KeyRange(5, 9)))
    assert(of(And(GreaterThan("id", 5), LessThan("id", 9))).contains(KeyRange(6, 8)))
    assert(of(EqualTo("id", 7L)).contains(KeyRange(7, 7)))
    assert(of(In("id", Array[Any](4L, 12L, 8L))).contains(KeyRange(4, 12)))
    assert(of(In("id", Array[Any](4L, null))).contains(KeyRange(4, 4)))
    assert(of(GreaterThan("id", 10L), LessThan("id", 3L)).exists(_.isEmpty))
    assert(of(GreaterThan("id", Long.MaxValue)).exists(_.isEmpty))
    assert(of(LessThan("id", Long.MinValue)).exists(_.isEmpty))
  }

  test("other columns, other predicates and literals that are not integral leave the range unknown") {
    assert(of(GreaterThan("v", 5L)).isEmpty)
    assert(of(Or(EqualTo("id", 1L), EqualTo("id", 9L))).isEmpty)
    assert(of(Not(EqualTo("id", 1L))).isEmpty)
    assert(of(EqualTo("id", "7")).isEmpty)
    assert(of(GreaterThan("id", 1.5)).isEmpty)
    assert(of(In("id", Array[Any](1L, "x"))).isEmpty)
    assert(of(And(GreaterThan("v", 1L), LessThan("id", 9L))).contains(KeyRange(Long.MinValue, 8)))
    assert(of().isEmpty)
  }
}
