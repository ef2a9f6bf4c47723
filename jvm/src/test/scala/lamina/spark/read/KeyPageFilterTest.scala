package lamina.spark.read

import org.apache.spark.sql.sources.{And, EqualTo, GreaterThanOrEqual, LessThanOrEqual, Or}
import org.apache.spark.sql.types.{DateType, IntegerType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import lamina.mergetree.{KeyRange, LongKeys}

class KeyPageFilterTest extends AnyFunSuite {

  test("keys in a few ranges are worth a filter; keys scattered evenly over their span are not") {
    val ranges = LongKeys.of((0 until 10).flatMap(r => (r * 100000L) until (r * 100000L + 1000)).toArray)
    assert(KeyPageFilter.worthIt(ranges, ranges.cover(KeyPageFilter.MaxRanges)))
    val scattered = LongKeys.of((0L until 1000000L by 100).toArray)
    assert(!KeyPageFilter.worthIt(scattered, scattered.cover(KeyPageFilter.MaxRanges)))
    // scattered but clustered: 300 clumps of 10 neighbours spread over a wide span
    val clumps = LongKeys.of((0 until 300).flatMap(c => (c * 10000L) until (c * 10000L + 10)).toArray)
    assert(KeyPageFilter.worthIt(clumps, clumps.cover(KeyPageFilter.MaxRanges)))
    val none = LongKeys.of(Array.emptyLongArray)
    assert(!KeyPageFilter.worthIt(none, none.cover(KeyPageFilter.MaxRanges)))
  }

  test("ranges become a balanced OR of the key column's bounds, with literals of its type") {
    val rs = Seq(KeyRange(1, 5), KeyRange(9, 9), KeyRange(20, 30))
    assert(RuntimeKeyFilters.ofRanges("k", LongType, rs).contains(
        Or(And(GreaterThanOrEqual("k", 1L), LessThanOrEqual("k", 5L)),
          Or(EqualTo("k", 9L), And(GreaterThanOrEqual("k", 20L), LessThanOrEqual("k", 30L))))))
    assert(RuntimeKeyFilters.ofRanges("k", IntegerType, Seq(KeyRange(3, 4))).contains(
        And(GreaterThanOrEqual("k", 3), LessThanOrEqual("k", 4))))
    assert(RuntimeKeyFilters.ofRanges("k", DateType, rs).isEmpty)
    assert(RuntimeKeyFilters.ofRanges("k", LongType, Seq.empty).isEmpty)
    def depth(f: org.apache.spark.sql.sources.Filter): Int = f match {
      case Or(a, b) => 1 + math.max(depth(a), depth(b))
      case _ => 0
    }
    val many = (0 until 256).map(i => KeyRange(i * 10L, i * 10L + 2))
    assert(depth(RuntimeKeyFilters.ofRanges("k", LongType, many).get) == 8)
  }
}
