package lamina.format

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types.{DataType, Decimal, StructType}
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String, VariantVal}

/** One record in the key-value layout of a data file, as the file writer reads it: the key's
 *  columns, the sequence number, the row kind, then the table's columns -- a read-only view over the
 *  key row and the value row, reused from record to record. */
final class KeyValueRow(keyArity: Int, fileSchema: StructType) extends InternalRow {
  private var key: InternalRow = _
  private var sequence = 0L
  private var kind: Byte = 0
  private var value: InternalRow = _
  private val valueOffset = keyArity + 2

  def set(key: InternalRow, sequence: Long, kind: Byte, value: InternalRow): InternalRow = {
    this.key = key
    this.sequence = sequence
    this.kind = kind
    this.value = value
    this
  }

  override val numFields: Int = fileSchema.size
  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("KeyValueRow is read-only")
  override def update(i: Int, v: Any): Unit = throw new UnsupportedOperationException("KeyValueRow is read-only")

  override def copy(): InternalRow = {
    val out = new GenericInternalRow(numFields)
    var i = 0
    while (i < numFields) {
      if (!isNullAt(i)) out.update(i, InternalRow.copyValue(get(i, fileSchema(i).dataType)))
      i += 1
    }
    out
  }

  override def isNullAt(i: Int): Boolean =
    if (i >= valueOffset) value.isNullAt(i - valueOffset) else if (i < keyArity) key.isNullAt(i) else false

  override def getBoolean(i: Int): Boolean = if (i < keyArity) key.getBoolean(i) else value.getBoolean(i - valueOffset)
  override def getByte(i: Int): Byte =
    if (i == keyArity + 1) kind else if (i < keyArity) key.getByte(i) else value.getByte(i - valueOffset)
  override def getShort(i: Int): Short = if (i < keyArity) key.getShort(i) else value.getShort(i - valueOffset)
  override def getInt(i: Int): Int = if (i < keyArity) key.getInt(i) else value.getInt(i - valueOffset)
  override def getLong(i: Int): Long =
    if (i == keyArity) sequence else if (i < keyArity) key.getLong(i) else value.getLong(i - valueOffset)
  override def getFloat(i: Int): Float = if (i < keyArity) key.getFloat(i) else value.getFloat(i - valueOffset)
  override def getDouble(i: Int): Double = if (i < keyArity) key.getDouble(i) else value.getDouble(i - valueOffset)
  override def getDecimal(i: Int, p: Int, s: Int): Decimal =
    if (i < keyArity) key.getDecimal(i, p, s) else value.getDecimal(i - valueOffset, p, s)
  override def getUTF8String(i: Int): UTF8String =
    if (i < keyArity) key.getUTF8String(i) else value.getUTF8String(i - valueOffset)
  override def getBinary(i: Int): Array[Byte] = if (i < keyArity) key.getBinary(i) else value.getBinary(i - valueOffset)
  override def getInterval(i: Int): CalendarInterval =
    if (i < keyArity) key.getInterval(i) else value.getInterval(i - valueOffset)
  override def getVariant(i: Int): VariantVal = if (i < keyArity) key.getVariant(i) else value.getVariant(i - valueOffset)
  override def getStruct(i: Int, n: Int): InternalRow =
    if (i < keyArity) key.getStruct(i, n) else value.getStruct(i - valueOffset, n)
  override def getArray(i: Int): ArrayData = if (i < keyArity) key.getArray(i) else value.getArray(i - valueOffset)
  override def getMap(i: Int): MapData = if (i < keyArity) key.getMap(i) else value.getMap(i - valueOffset)

  override def get(i: Int, dataType: DataType): AnyRef =
    if (i == keyArity) Long.box(sequence)
    else if (i == keyArity + 1) Byte.box(kind)
    else if (i < keyArity) key.get(i, dataType)
    else value.get(i - valueOffset, dataType)
}
