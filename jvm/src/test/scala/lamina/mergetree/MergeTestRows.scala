package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

import lamina.types._

/** Builders for merge-tree tests: rows of Scala values (strings become UTF8String) and records. */
object MergeTestRows {
  def row(values: Any*): InternalRow = new GenericInternalRow(values.map {
    case s: String => UTF8String.fromString(s)
    case v => v
  }.toArray)

  /** Scala values of a row, UTF8String back to String, for assertions. */
  def values(r: InternalRow, fields: Seq[DataField]): Seq[Any] = {
    val getters = FieldGetter.all(fields)
    getters.toSeq.map(g => g.get(r) match {
      case s: UTF8String => s.toString
      case v => v
    })
  }

  /** Orders rows by their first column, an INT. */
  val intKeyOrdering: Ordering[InternalRow] = (a: InternalRow, b: InternalRow) => Integer.compare(a.getInt(0), b.getInt(0))

  /** A record whose key is the first column of `value`. */
  def kv(seq: Long, kind: String, value: InternalRow): KeyValue =
    new KeyValue(row(value.getInt(0)), seq, RowKind.fromShortString(kind), value)

  def field(id: Int, name: String, t: DataType): DataField = DataField(id, name, t)
}
