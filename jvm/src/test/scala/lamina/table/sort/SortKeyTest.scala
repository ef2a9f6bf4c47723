package lamina.table.sort

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.table.TestTables
import lamina.table.schema.TableSchema
import lamina.types.{ArrayType, DataField, IntType}

class SortKeyTest extends AnyFunSuite {
  private val schema = TestTables.eventsSchema() // id INT, v STRING, p STRING (partition)

  private def refused(strategy: OrderStrategy, orderBy: String, s: TableSchema = schema): String =
    intercept[BadInputException](SortKey.of(s, "db.t", strategy, orderBy, 8)).getMessage

  private def row(id: Int, v: String) =
    new GenericInternalRow(Array[Any](id, UTF8String.fromString(v), UTF8String.fromString("p")))

  test("order_strategy parses Paimon's names, case-insensitively; blank is none; others are refused by name") {
    assert(OrderStrategy.parse("ZORDER") === OrderStrategy.ZOrder)
    assert(OrderStrategy.parse(" hilbert ") === OrderStrategy.Hilbert)
    assert(OrderStrategy.parse("") === OrderStrategy.NoOrder)
    assert(intercept[BadInputException](OrderStrategy.parse("morton")).getMessage ===
      "Unknown order_strategy 'morton': use 'none', 'order', 'zorder', 'hilbert'")
  }

  test("bad order_by arguments are refused naming the argument") {
    assert(refused(OrderStrategy.NoOrder, "id") ===
      "order_strategy 'none' cannot be given order_by columns; use 'order', 'zorder' or 'hilbert'")
    assert(refused(OrderStrategy.ZOrder, " ") === "order_strategy 'zorder' needs order_by columns (comma-separated)")
    assert(refused(OrderStrategy.Order, "id,nope") ===
      "order_by column 'nope' is not a column of table db.t; columns are id, v, p")
    assert(refused(OrderStrategy.Hilbert, "p") === "order_by column 'p' is a partition column of table db.t: the " +
      "rows of a partition all share it, so ordering by it is meaningless")
    assert(refused(OrderStrategy.Order, "id,id") === "order_by names a column twice: id, id")
    val pk = schema.copy(primaryKeys = Seq("id", "p"))
    assert(refused(OrderStrategy.ZOrder, "v", pk) === "order_strategy 'zorder' sorts append tables only: table " +
      "db.t has a primary key (id, p), whose files are sorted by it")
    val nested = schema.copy(fields = schema.fields :+ DataField(3, "xs", ArrayType(IntType())))
    assert(refused(OrderStrategy.Order, "xs", nested) === "order_by column 'xs' has type ARRAY<INT>, which has no order")
    assert(SortKey.of(schema, "db.t", OrderStrategy.NoOrder, "", 8).isEmpty)
  }

  test("order: keys sort as the columns in turn") {
    val key = SortKey.of(schema, "db.t", OrderStrategy.Order, "v,id", 8).get
    val rows = Seq(row(2, "b"), row(1, "b"), row(9, "a"), row(-5, "b"), row(0, "ab"))
    val sorted = rows.sortBy(key(_))(OrderedBytes.Unsigned).map(r => (r.getUTF8String(1).toString, r.getInt(0)))
    assert(sorted === Seq(("a", 9), ("ab", 0), ("b", -5), ("b", 1), ("b", 2)))
  }

  test("zorder: on ties of the other column, keys order as the column that differs, strings by their first bytes") {
    val key = SortKey.of(schema, "db.t", OrderStrategy.ZOrder, "id,v", 2).get
    def cmp(a: GenericInternalRow, b: GenericInternalRow) = Integer.signum(OrderedBytes.Unsigned.compare(key(a), key(b)))
    assert(cmp(row(1, "x"), row(2, "x")) === -1)
    assert(cmp(row(5, "a"), row(5, "b")) === -1)
    assert(cmp(row(5, "abX"), row(5, "abY")) === 0) // two bytes of a string take part
    assert(key(row(1, "x")).length === 8 + 2)
  }

  test("hilbert: distinct keys for distinct points; one column is its own order") {
    val key = SortKey.of(schema, "db.t", OrderStrategy.Hilbert, "id,v", 8).get
    val points = for (i <- 0 until 20; s <- Seq("a", "b", "c")) yield row(i, s)
    assert(points.map(p => key(p).toSeq).distinct.size === points.size)
    val one = SortKey.of(schema, "db.t", OrderStrategy.Hilbert, "id", 8).get
    assert((-3 to 3).map(i => one(row(i, "x"))).sliding(2).forall(p => OrderedBytes.Unsigned.lt(p(0), p(1))))
  }
}
