package lamina.mergetree.function

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types._

class NestedAggregatorsTest extends AnyFunSuite {
  private val Str = VarCharType(VarCharType.MaxLength)

  /** The nested rows (k INT, v STRING). */
  private val Nested = RowType(Seq(DataField(10, "k", IntType()), DataField(11, "v", Str)))
  private def same(a: Any, b: Any): Boolean = a.asInstanceOf[AnyRef] eq b.asInstanceOf[AnyRef]
  private def agg(fn: String, t: DataType, options: Map[String, String] = Map.empty): FieldAggregator =
    FieldAggregator.create(fn, DataField(1, "f", t), options, "db.t")

  private def row(k: Any, v: String): InternalRow = new GenericInternalRow(Array[Any](k, if (v == null) null else str(v)))
  private def str(s: String) = UTF8String.fromString(s)
  private def arr(rs: InternalRow*): ArrayData = new GenericArrayData(rs.toArray[Any])
  private def rows(a: Any): Seq[(Any, String)] = {
    val d = a.asInstanceOf[ArrayData]
    (0 until d.numElements()).map { i =>
      if (d.isNullAt(i)) null
      else {
        val r = d.getStruct(i, 2)
        (if (r.isNullAt(0)) null else r.getInt(0), if (r.isNullAt(1)) null else r.getUTF8String(1).toString)
      }
    }
  }

  private def fold(a: FieldAggregator, steps: Seq[(String, Any)]): Any = {
    a.reset()
    steps.foldLeft(null: Any) { case (acc, (op, v)) => if (op == "+") a.agg(acc, v) else a.retract(acc, v) }
  }

  test("nested_update without a key appends non-NULL rows and retracts equal rows") {
    val a = agg("nested_update", ArrayType(Nested))
    val out = fold(a, Seq("+" -> arr(row(1, "a")), "+" -> null, "+" -> arr(row(1, "a"), null, row(2, "b"))))
    assert(rows(out) == Seq(1 -> "a", 1 -> "a", 2 -> "b"))
    assert(rows(a.retract(out, arr(row(1, "a"), null))) == Seq(2 -> "b"))
    assert(rows(a.retract(out, arr(row(1, "x")))) == rows(out))
    // the first array is kept as it is, NULL elements included
    assert(rows(fold(a, Seq("+" -> arr(null, row(3, "c"))))) == Seq(null, 3 -> "c"))
    assert(a.retract(null, arr(row(1, "a"))) == null)
  }

  test("nested_update with nested-key replaces the row of a key and retracts by key") {
    val a = agg("nested_update", ArrayType(Nested), Map("fields.f.nested-key" -> "k"))
    val out = fold(a, Seq("+" -> arr(row(1, "a"), row(2, "b")), "+" -> arr(row(2, "B"), row(3, "c"), row(null, "n"))))
    assert(rows(out) == Seq(1 -> "a", 2 -> "B", 3 -> "c", (null, "n")))
    assert(rows(a.retract(out, arr(row(2, "whatever"), row(null, "x")))) == Seq(1 -> "a", 3 -> "c"))
    val both = agg("nested_update", ArrayType(Nested), Map("fields.f.nested-key" -> " k , v "))
    assert(rows(fold(both, Seq("+" -> arr(row(1, "a")), "+" -> arr(row(1, "b"), row(1, "a"))))) == Seq(1 -> "a", 1 -> "b"))
  }

  test("nested_update count-limit stops adding rows once reached") {
    val a = agg("nested_update", ArrayType(Nested), Map("fields.f.count-limit" -> "3"))
    val out = fold(a, Seq("+" -> arr(row(1, "a")), "+" -> arr(row(2, "b"), null, row(3, "c"), row(4, "d"))))
    assert(rows(out) == Seq(1 -> "a", 2 -> "b", 3 -> "c"))
    assert(same(a.agg(out, arr(row(5, "e"))), out))
  }

  test("nested_update needs ARRAY<ROW>, key fields the rows have, an integer count-limit") {
    assert(intercept[BadInputException](agg("nested_update", ArrayType(IntType()))).getMessage.endsWith(
        "does not support type ARRAY<INT>; it needs an ARRAY<ROW> type"))
    assert(intercept[BadInputException](agg("nested_update", ArrayType(Nested), Map("fields.f.nested-key" -> "id")))
      .getMessage == "Table db.t: option 'fields.f.nested-key' names field 'id', which the rows of column 'f' do not " +
      "have; they have k, v")
    assert(intercept[BadInputException](agg("nested_update", ArrayType(Nested), Map("fields.f.count-limit" -> "many")))
      .getMessage == "Table db.t: invalid value 'many' for option 'fields.f.count-limit': expected an integer")
  }

  test("nested_partial_update overwrites a key's fields with the non-NULL fields of its later rows") {
    val three = RowType(Nested.fields :+ DataField(12, "w", IntType()))
    def r3(k: Any, v: String, w: Any) = new GenericInternalRow(Array[Any](k, if (v == null) null else str(v), w))
    val a = agg("nested_partial_update", ArrayType(three), Map("fields.f.nested-key" -> "k"))
    val out = fold(a,
      Seq("+" -> arr(r3(1, "a", null), r3(2, "b", 20)), "+" -> null,
        "+" -> arr(r3(1, null, 10), null, r3(2, "B", null), r3(3, null, null))))
    val got = out.asInstanceOf[ArrayData]
    val values = (0 until got.numElements()).map { i =>
      val r = got.getStruct(i, 3)
      (r.getInt(0), if (r.isNullAt(1)) null else r.getUTF8String(1).toString, if (r.isNullAt(2)) null else r.getInt(2))
    }
    assert(values == Seq((1, "a", 10), (2, "B", 20), (3, null, null)))
    assert(!a.supportsRetract)
    assert(intercept[BadInputException](agg("nested_partial_update", ArrayType(Nested))).getMessage ==
      "Table db.t: aggregate function 'nested_partial_update' of column 'f' needs option 'fields.f.nested-key', " +
      "the fields that key the rows")
  }

  // merge_map_with_keytime over MAP<INT, ROW<v STRING, ts STRING>>
  private val Timed = RowType(Seq(DataField(10, "v", Str), DataField(11, "ts", Str)))
  private def tmap(kvs: (Int, (String, String))*): MapData = new ArrayBasedMapData(
    new GenericArrayData(kvs.map(_._1).toArray[Any]),
    new GenericArrayData(kvs.map { case (_, vt) => if (vt == null) null else row2(vt._1, vt._2) }.toArray[Any]))
  private def row2(v: String, ts: String): InternalRow =
    new GenericInternalRow(Array[Any](str(v), if (ts == null) null else str(ts)))
  private def tvalues(m: Any): Map[Int, (String, String)] = {
    val d = m.asInstanceOf[MapData]
    (0 until d.numElements()).map { i =>
      val r = if (d.valueArray().isNullAt(i)) null else d.valueArray().getStruct(i, 2)
      d.keyArray().getInt(i) -> (if (r == null) null
                                 else (r.getUTF8String(0).toString, if (r.isNullAt(1)) null else r.getUTF8String(1).toString))
    }.toMap
  }

  test("merge_map_with_keytime keeps per key the row with the greatest time") {
    val a = agg("merge_map_with_keytime", MapType(IntType(false), Timed))
    val first = tmap(1 -> ("a", "2024-01-02"), 2 -> ("b", null), 3 -> null, 4 -> ("d", "2024-01-01"))
    assert(same(a.agg(null, first), first))
    val out = a.agg(first,
      tmap(
        1 -> ("a-old", "2024-01-01"), // older: kept a
        2 -> ("b2", "2024-01-01"), // held row has no time: replaced
        3 -> ("c", "2024-01-01"), // held NULL: replaced
        4 -> null, // NULL value: key removed
        5 -> ("e", null), // no time: skipped
        6 -> ("f", "2024-01-03")))
    assert(tvalues(out) == Map(1 -> ("a", "2024-01-02"), 2 -> ("b2", "2024-01-01"), 3 -> ("c", "2024-01-01"),
      6 -> ("f", "2024-01-03")))
    assert(tvalues(a.agg(out, tmap(1 -> ("a-new", "2024-01-05"), 6 -> ("f-same", "2024-01-03")))) ==
      Map(1 -> ("a-new", "2024-01-05"), 2 -> ("b2", "2024-01-01"), 3 -> ("c", "2024-01-01"), 6 -> ("f", "2024-01-03")))
    assert(!a.supportsRetract)
  }

  test("merge_map_with_keytime takes its time field from ts-field or the last field, as a string") {
    val swapped = RowType(Seq(DataField(10, "ts", Str), DataField(11, "v", Str)))
    val a = agg("merge_map_with_keytime", MapType(IntType(false), swapped), Map("fields.f.ts-field" -> "ts"))
    // rows (ts, v): the time is the first field here
    val out = a.agg(tmap(1 -> ("2024-01-02", "old")), tmap(1 -> ("2024-01-01", "older"), 2 -> ("2024-01-09", "x")))
    assert(tvalues(out) == Map(1 -> ("2024-01-02", "old"), 2 -> ("2024-01-09", "x")))
    def error(t: DataType, o: Map[String, String] = Map.empty) =
      intercept[BadInputException](agg("merge_map_with_keytime", t, o)).getMessage
    assert(error(MapType(IntType(), IntType())).endsWith("it needs a MAP type whose values are ROWs of at least two fields"))
    assert(error(MapType(IntType(), RowType(Seq(DataField(10, "ts", Str))))).contains("at least two fields"))
    assert(error(MapType(IntType(), Timed), Map("fields.f.ts-field" -> "time")) == "Table db.t: option " +
      "'fields.f.ts-field' names field 'time', which the rows of column 'f' do not have; they have v, ts")
    assert(error(MapType(IntType(), RowType(Seq(DataField(10, "v", Str), DataField(11, "ts", BigIntType()))))) ==
      "Table db.t: aggregate function 'merge_map_with_keytime' of column 'f' compares the times of field 'ts' as " +
      "strings, but it has type BIGINT")
  }
}
