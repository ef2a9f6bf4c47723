package lamina.spark

import org.apache.spark.sql.sources
import org.apache.spark.sql.types.{IntegerType, StringType}
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.predicate._

class SparkFiltersTest extends AnyFunSuite {
  test("every Spark filter Lamina evaluates becomes its predicate, nested ones too") {
    val filter = sources.Or(
      sources.And(sources.EqualTo("a", 1), sources.Not(sources.IsNull("b"))),
      sources.In("c", Array[Any]("x", "y")))
    val In(c, values) = SparkFilters.toPredicate(sources.In("c", Array[Any]("x", "y")))
    assert(c == "c" && values.toSeq == Seq("x", "y"))
    val Or(left, _) = SparkFilters.toPredicate(filter)
    assert(left == And(EqualTo("a", 1), Not(IsNull("b"))))
    assert(SparkFilters.toPredicates(Seq(sources.GreaterThan("a", 1), sources.AlwaysFalse(), sources.StringEndsWith("s", "z"))) ==
      Seq(GreaterThan("a", 1), AlwaysFalse(), StringEndsWith("s", "z")))
  }

  test("a filter without a predicate is unsupported: unknown, naming its columns, inside others too") {
    // a comparison under a collation: Lamina compares strings by their bytes only
    val odd = sources.CollatedEqualTo("q", "x", StringType("UTF8_LCASE"))
    assert(SparkFilters.toPredicate(odd) == Unsupported(odd.toString, Seq("q")))
    val not = SparkFilters.toPredicate(sources.Not(odd))
    assert(!PredicateEval.supported(not))
    assert(not.references == Seq("q"))
    assert(PredicateEval.eval(not, _ => Some((1, IntegerType))).isEmpty)
  }

  test("a filter renamed onto other columns keeps its condition; one holding an unknown filter is dropped") {
    val filter = sources.Or(
      sources.And(sources.GreaterThanOrEqual("id", 5L), sources.LessThan("id", 9L)),
      sources.Not(sources.In("k", Array[Any](1, 2))))
    assert(SparkFilters.renamed(filter, "_KEY_" + _) == Some(sources.Or(
        sources.And(sources.GreaterThanOrEqual("_KEY_id", 5L), sources.LessThan("_KEY_id", 9L)),
        sources.Not(sources.In("_KEY_k", Array[Any](1, 2))))))
    assert(SparkFilters.renamed(sources.StringStartsWith("s", "ab"), _.toUpperCase) == Some(sources.StringStartsWith("S", "ab")))
    val odd = sources.CollatedEqualTo("q", "x", StringType("UTF8_LCASE"))
    assert(SparkFilters.renamed(sources.Not(sources.And(sources.IsNull("a"), odd)), "_KEY_" + _).isEmpty)
  }
}
