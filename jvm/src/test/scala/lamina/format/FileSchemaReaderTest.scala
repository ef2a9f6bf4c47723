package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.types.SparkTypes

/** Rows of a file written under an older schema, read in the current one: nested struct fields are
 *  matched by field id, inside lists and maps too. */
class FileSchemaReaderTest extends AnyFunSuite {
  private def field(name: String, id: Long, t: DataType) =
    StructField(name, t, nullable = true, new MetadataBuilder().putLong(SparkTypes.FieldIdKey, id).build())

  private def reader(file: StructType, current: StructType) =
    FileSchemaReader((_, _) => Iterator.empty, FileSchemaReader.plain(file), Array.range(0, current.size),
      FileSchemaReader.plain(current), fileColumnsWithIds = file, outputWithIds = current)

  private def s(v: String) = UTF8String.fromString(v)

  test("a nested field added later reads as null, a renamed one keeps its value, a widened one is cast") {
    val fileS = StructType(Seq(field("a", 2, IntegerType), field("b", 3, StringType)))
    val nowS = StructType(Seq(field("a", 2, LongType), field("renamed", 3, StringType), field("w", 4, DoubleType)))
    val file = StructType(Seq(field("id", 0, IntegerType), field("s", 1, fileS),
        field("l", 5, ArrayType(fileS)), field("m", 6, MapType(StringType, fileS))))
    val now = StructType(Seq(field("id", 0, IntegerType), field("s", 1, nowS),
        field("l", 5, ArrayType(nowS)), field("m", 6, MapType(StringType, nowS))))
    val inner = InternalRow(7, s("x"))
    val row = InternalRow(1, inner, new GenericArrayData(Array[Any](inner, null)),
      ArrayBasedMapData(Map(s("k") -> inner)))
    val out = reader(file, now).projection()(row)
    assert(out.getInt(0) == 1)
    val st = out.getStruct(1, 3)
    assert(st.getLong(0) == 7L && st.getUTF8String(1).toString == "x" && st.isNullAt(2))
    val list = out.getArray(2)
    assert(list.numElements() == 2 && list.getStruct(0, 3).getLong(0) == 7L && list.getStruct(0, 3).isNullAt(2) &&
      list.isNullAt(1))
    val m = out.getMap(3)
    assert(m.keyArray().getUTF8String(0).toString == "k" && m.valueArray().getStruct(0, 3).getUTF8String(1).toString == "x")
  }

  test("a null struct stays null; a dropped nested field is not read") {
    val file = StructType(Seq(field("s", 1, StructType(Seq(field("a", 2, IntegerType), field("gone", 3, StringType))))))
    val now = StructType(Seq(field("s", 1, StructType(Seq(field("a", 2, IntegerType), field("w", 4, StringType))))))
    val p = reader(file, now).projection()
    assert(p(InternalRow(null)).isNullAt(0))
    val st = p(InternalRow(InternalRow(3, s("old")))).getStruct(0, 2)
    assert(st.getInt(0) == 3 && st.isNullAt(1))
  }
}
