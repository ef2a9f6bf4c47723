package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types.{DataType, Decimal, StructType}
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String, VariantVal}

/** A read-only view of another row's columns in another order: column i is column `ordinals(i)`
 *  of the viewed row, or null where `ordinals(i)` is negative (a column the file does not hold or
 *  the read does not need). Reading through it decodes only the columns asked for. */
final class NullPaddedRow(schema: StructType, ordinals: Array[Int]) extends InternalRow {
  private var row: InternalRow = _

  def project(r: InternalRow): InternalRow = { row = r; this }

  private var selected: Array[Int] = _
  private var selectedView: NullPaddedRow = _

  /** The columns `columns` of this view (a schema and ordinals into it), as one view straight over the
   *  viewed row: reading through it skips this view. Valid while this view views the same row. */
  def select(columnSchema: StructType, columns: Array[Int]): InternalRow = {
    if (selected ne columns) {
      selected = columns
      selectedView = new NullPaddedRow(columnSchema, columns.map(i => ordinals(i)))
    }
    selectedView.project(row)
  }

  override def numFields: Int = ordinals.length
  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("NullPaddedRow is read-only")
  override def update(i: Int, value: Any): Unit = throw new UnsupportedOperationException("NullPaddedRow is read-only")

  override def copy(): InternalRow = {
    val out = new GenericInternalRow(ordinals.length)
    var i = 0
    while (i < ordinals.length) {
      if (!isNullAt(i)) out.update(i, InternalRow.copyValue(get(i, schema(i).dataType)))
      i += 1
    }
    out
  }

  override def isNullAt(i: Int): Boolean = ordinals(i) < 0 || row.isNullAt(ordinals(i))
  override def getBoolean(i: Int): Boolean = row.getBoolean(ordinals(i))
  override def getByte(i: Int): Byte = row.getByte(ordinals(i))
  override def getShort(i: Int): Short = row.getShort(ordinals(i))
  override def getInt(i: Int): Int = row.getInt(ordinals(i))
  override def getLong(i: Int): Long = row.getLong(ordinals(i))
  override def getFloat(i: Int): Float = row.getFloat(ordinals(i))
  override def getDouble(i: Int): Double = row.getDouble(ordinals(i))
  override def getDecimal(i: Int, precision: Int, scale: Int): Decimal =
    if (ordinals(i) < 0) null else row.getDecimal(ordinals(i), precision, scale)
  override def getUTF8String(i: Int): UTF8String = if (ordinals(i) < 0) null else row.getUTF8String(ordinals(i))
  override def getBinary(i: Int): Array[Byte] = if (ordinals(i) < 0) null else row.getBinary(ordinals(i))
  override def getInterval(i: Int): CalendarInterval = if (ordinals(i) < 0) null else row.getInterval(ordinals(i))
  override def getVariant(i: Int): VariantVal = if (ordinals(i) < 0) null else row.getVariant(ordinals(i))
  override def getStruct(i: Int, numFields: Int): InternalRow =
    if (ordinals(i) < 0) null else row.getStruct(ordinals(i), numFields)
  override def getArray(i: Int): ArrayData = if (ordinals(i) < 0) null else row.getArray(ordinals(i))
  override def getMap(i: Int): MapData = if (ordinals(i) < 0) null else row.getMap(ordinals(i))
  override def get(i: Int, dataType: DataType): AnyRef = if (ordinals(i) < 0) null else row.get(ordinals(i), dataType)
}
