package lamina.format

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class KeyValueRowTest extends AnyFunSuite {
  private val fileSchema = StructType(Seq(
      StructField("_KEY_k", LongType), StructField("_KEY_s", StringType),
      StructField("_SEQUENCE_NUMBER", LongType), StructField("_VALUE_KIND", ByteType),
      StructField("k", LongType), StructField("s", StringType), StructField("v", IntegerType)))

  test("key columns, sequence number, kind, then value columns; nulls of the value row show through") {
    val key = new GenericInternalRow(Array[Any](5L, UTF8String.fromString("a")))
    val value = new GenericInternalRow(Array[Any](5L, UTF8String.fromString("a"), null))
    val row = new KeyValueRow(2, fileSchema)
    row.set(key, 42L, 3.toByte, value)
    assert(row.numFields === 7)
    assert(row.getLong(0) === 5L && row.getUTF8String(1).toString === "a")
    assert(row.getLong(2) === 42L && row.getByte(3) === 3.toByte)
    assert(!row.isNullAt(2) && !row.isNullAt(3))
    assert(row.getLong(4) === 5L && row.getUTF8String(5).toString === "a" && row.isNullAt(6))
    assert(row.get(2, LongType) === 42L && row.get(3, ByteType) === 3.toByte)
    val copy = row.copy()
    row.set(key, 43L, 0.toByte, new GenericInternalRow(Array[Any](6L, UTF8String.fromString("b"), 1)))
    assert(copy.getLong(2) === 42L && copy.isNullAt(6) && copy.getLong(4) === 5L)
    assert(row.getInt(6) === 1 && row.getByte(3) === 0.toByte)
    assertThrows[UnsupportedOperationException](row.update(0, null))
  }
}
