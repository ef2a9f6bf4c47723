package lamina.format

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class NullPaddedRowTest extends AnyFunSuite {
  private val schema = StructType(Seq(
      StructField("s", StringType), StructField("missing", StringType), StructField("l", LongType),
      StructField("d", DecimalType(10, 2))))

  private def source = new GenericInternalRow(Array[Any](
      7L, UTF8String.fromString("x"), Decimal(BigDecimal("1.25"), 10, 2), null))

  test("columns come from the viewed row in the view's order; negative ordinals read as null") {
    val view = new NullPaddedRow(schema, Array(1, -1, 0, 2))
    view.project(source)
    assert(view.numFields === 4)
    assert(view.getUTF8String(0).toString === "x")
    assert(view.isNullAt(1) && view.getUTF8String(1) == null && view.get(1, StringType) == null)
    assert(view.getLong(2) === 7L && !view.isNullAt(2))
    assert(view.getDecimal(3, 10, 2) === Decimal(BigDecimal("1.25"), 10, 2))
  }

  test("a null column of the viewed row is null in the view") {
    val view = new NullPaddedRow(StructType(Seq(StructField("n", StringType))), Array(3))
    view.project(source)
    assert(view.isNullAt(0))
  }

  test("copy is detached from the viewed row, and the view is read-only") {
    val src = source
    val view = new NullPaddedRow(schema, Array(1, -1, 0, 2))
    view.project(src)
    val copy = view.copy()
    src.update(0, 8L)
    src.update(1, UTF8String.fromString("y"))
    assert(copy.getLong(2) === 7L && copy.getUTF8String(0).toString === "x" && copy.isNullAt(1))
    assert(view.getLong(2) === 8L)
    assertThrows[UnsupportedOperationException](view.update(0, null))
    assertThrows[UnsupportedOperationException](view.setNullAt(0))
  }

  test("select gives the chosen columns as one view straight over the viewed row") {
    val src = source
    val view = new NullPaddedRow(schema, Array(1, -1, 0, 2))
    view.project(src)
    val chosen = Array(2, 1, 0)
    val selectedSchema = StructType(Seq(schema(2), schema(1), schema(0)))
    val selected = view.select(selectedSchema, chosen)
    assert(selected.getLong(0) === 7L && selected.isNullAt(1) && selected.getUTF8String(2).toString === "x")
    val other = new GenericInternalRow(Array[Any](9L, UTF8String.fromString("z"), null, null))
    view.project(other)
    val again = view.select(selectedSchema, chosen)
    assert(again.getLong(0) === 9L && again.getUTF8String(2).toString === "z")
  }
}
