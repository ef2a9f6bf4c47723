package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

/** Row kinds as Paimon stores them in the `_VALUE_KIND` column: +I=0, -U=1, +U=2, -D=3.
 *  Add kinds (+I, +U) carry a row; retract kinds (-U, -D) withdraw one. */
object RowKind {
  val Insert: Byte = 0
  val UpdateBefore: Byte = 1
  val UpdateAfter: Byte = 2
  val Delete: Byte = 3

  /** +I (0) or +U (2): the only kinds with bit 0 clear. Constant bit tests: this runs per record. */
  def isAdd(k: Byte): Boolean = (k & ~2) == 0

  def isRetract(k: Byte): Boolean = (k & ~2) == 1

  def shortString(k: Byte): String = k match {
    case Insert => "+I"
    case UpdateBefore => "-U"
    case UpdateAfter => "+U"
    case Delete => "-D"
    case other => throw new IllegalArgumentException(s"Unknown row kind $other")
  }

  def fromShortString(s: String): Byte = s match {
    case "+I" => Insert
    case "-U" => UpdateBefore
    case "+U" => UpdateAfter
    case "-D" => Delete
    case other => throw new IllegalArgumentException(s"Unknown row kind '$other'")
  }
}

/** One record of the LSM tree: the primary key, the sequence number the writer gave it (unique and
 *  increasing within a bucket), its row kind, and `value`, which holds ALL table columns in schema
 *  order as Spark internal values.
 *
 *  Instances are mutable so that readers can reuse them; whoever keeps one past the next call on its
 *  source must [[copy]] it. */
final class KeyValue(var key: InternalRow, var sequenceNumber: Long, var valueKind: Byte, var value: InternalRow) {

  def replace(key: InternalRow, sequenceNumber: Long, valueKind: Byte, value: InternalRow): KeyValue = {
    this.key = key
    this.sequenceNumber = sequenceNumber
    this.valueKind = valueKind
    this.value = value
    this
  }

  /** A deep copy that shares no buffer with this one. */
  def copy(): KeyValue = new KeyValue(key.copy(), sequenceNumber, valueKind, value.copy())

  def isAdd: Boolean = RowKind.isAdd(valueKind)

  override def toString: String = s"KeyValue($key, seq=$sequenceNumber, ${RowKind.shortString(valueKind)}, $value)"
}
