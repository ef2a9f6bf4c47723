package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.types.{
  ByteType,
  DataType,
  DateType,
  IntegerType,
  LongType,
  ShortType,
  StructField,
  StructType,
  TimestampNTZType,
  TimestampType
}
import org.apache.spark.sql.vectorized.ColumnVector

/** How a merge orders primary keys: `ordering` for any key; `asLong`, when the key is one integral
 *  column (never null: key columns are NOT NULL), maps it to a long of the same order, which the
 *  merge caches per run head and compares instead of calling the ordering. */
final case class KeyOrder(ordering: Ordering[InternalRow], asLong: Option[KeyOrder.LongKey])

object KeyOrder {

  /** Reads a single-column integral key as a long, from a key row or from the key's column vector. */
  sealed abstract class LongKey extends Serializable {
    def apply(key: InternalRow): Long
    def apply(column: ColumnVector, rowId: Int): Long

    /** The key row whose long form is `key` (a value of the key's type). */
    def row(key: Long): InternalRow
  }
  private object LongColumn extends LongKey {
    def row(key: Long): InternalRow = InternalRow(key)
    def apply(key: InternalRow): Long = key.getLong(0)
    def apply(column: ColumnVector, rowId: Int): Long = column.getLong(rowId)
  }
  private object IntColumn extends LongKey {
    def row(key: Long): InternalRow = InternalRow(key.toInt)
    def apply(key: InternalRow): Long = key.getInt(0).toLong
    def apply(column: ColumnVector, rowId: Int): Long = column.getInt(rowId).toLong
  }
  private object ShortColumn extends LongKey {
    def row(key: Long): InternalRow = InternalRow(key.toShort)
    def apply(key: InternalRow): Long = key.getShort(0).toLong
    def apply(column: ColumnVector, rowId: Int): Long = column.getShort(rowId).toLong
  }
  private object ByteColumn extends LongKey {
    def row(key: Long): InternalRow = InternalRow(key.toByte)
    def apply(key: InternalRow): Long = key.getByte(0).toLong
    def apply(column: ColumnVector, rowId: Int): Long = column.getByte(rowId).toLong
  }

  /** The long form of a key of these Spark types, when there is one. */
  def longKeyOf(keyTypes: Seq[DataType]): Option[LongKey] = keyTypes match {
    case Seq(LongType | TimestampType | TimestampNTZType) => Some(LongColumn)
    case Seq(IntegerType | DateType) => Some(IntColumn)
    case Seq(ShortType) => Some(ShortColumn)
    case Seq(ByteType) => Some(ByteColumn)
    case _ => None
  }

  /** Spark's compiled ascending order of key rows of these (NOT NULL) Spark types. */
  def orderingOf(keyTypes: Seq[DataType]): Ordering[InternalRow] =
    GenerateOrdering.create(StructType(keyTypes.zipWithIndex.map { case (t, i) => StructField(s"k$i", t, nullable = false) }))

  def general(ordering: Ordering[InternalRow]): KeyOrder = KeyOrder(ordering, None)
}
