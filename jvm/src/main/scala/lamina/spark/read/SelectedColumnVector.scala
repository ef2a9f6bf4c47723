package lamina.spark.read

import scala.collection.mutable

import org.apache.spark.sql.types.Decimal
import org.apache.spark.sql.vectorized.{ColumnarArray, ColumnarMap, ColumnVector}
import org.apache.spark.unsafe.types.UTF8String

/** The rows `selected` of a column vector (row i of this vector is row `selected(i)` of `base`),
 *  without copying: how a batch drops the rows that a deletion vector deletes. Children of a struct
 *  are selected alike, so struct rows, arrays and maps read through it unchanged. */
final class SelectedColumnVector(base: ColumnVector, selected: Array[Int], count: Int) extends ColumnVector(base.dataType()) {
  private val children = mutable.HashMap.empty[Int, ColumnVector]

  override def close(): Unit = () // the reader closes `base`
  override def hasNull: Boolean = base.hasNull
  override def numNulls: Int = (0 until count).count(isNullAt)
  override def isNullAt(rowId: Int): Boolean = base.isNullAt(selected(rowId))
  override def getBoolean(rowId: Int): Boolean = base.getBoolean(selected(rowId))
  override def getByte(rowId: Int): Byte = base.getByte(selected(rowId))
  override def getShort(rowId: Int): Short = base.getShort(selected(rowId))
  override def getInt(rowId: Int): Int = base.getInt(selected(rowId))
  override def getLong(rowId: Int): Long = base.getLong(selected(rowId))
  override def getFloat(rowId: Int): Float = base.getFloat(selected(rowId))
  override def getDouble(rowId: Int): Double = base.getDouble(selected(rowId))
  override def getArray(rowId: Int): ColumnarArray = base.getArray(selected(rowId))
  override def getMap(rowId: Int): ColumnarMap = base.getMap(selected(rowId))
  override def getDecimal(rowId: Int, precision: Int, scale: Int): Decimal =
    base.getDecimal(selected(rowId), precision, scale)
  override def getUTF8String(rowId: Int): UTF8String = base.getUTF8String(selected(rowId))
  override def getBinary(rowId: Int): Array[Byte] = base.getBinary(selected(rowId))

  /** A struct's field (or a variant's or interval's part), selected alike; arrays and maps read their
   *  elements through `base`'s own children. */
  override def getChild(ordinal: Int): ColumnVector =
    children.getOrElseUpdate(ordinal, new SelectedColumnVector(base.getChild(ordinal), selected, count))
}
