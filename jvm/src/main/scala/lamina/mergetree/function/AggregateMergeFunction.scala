package lamina.mergetree.function

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import lamina.mergetree.{KeyValue, MergeFunction, RowKind}

/** merge-engine = aggregation: each non-key column folds the records of its key with its aggregate
 *  function; add records (+I, +U) aggregate, retract records (-U, -D) retract. Key columns take the
 *  latest value. The key never disappears, except with `removeRecordOnDelete`, where a -D removes the
 *  row and later records start from an empty one.
 *
 *  `aggs(i)` is None for primary-key columns. */
final class AggregateMergeFunction private[mergetree] (
    getters: Array[FieldGetter],
    aggs: Array[Option[ColumnAggregation]],
    ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean)
  extends MergeFunction {

  private var row: Array[Any] = _
  private var latest: KeyValue = _
  private var deleted = false

  /** The last -D that removed the row, when records came after it. */
  private var removedBy: KeyValue = _

  override def reset(): Unit = {
    row = new Array[Any](getters.length)
    aggs.foreach(_.foreach(_.reset()))
    latest = null
    deleted = false
    removedBy = null
  }

  /** A -D that removes the row, or retract records that every column's function can retract. */
  override def retractRefusal(kind: Byte): Option[String] =
    if (ignoreDelete || (kind == RowKind.Delete && removeRecordOnDelete)) None
    else getters.indices.collectFirst {
      case i if aggs(i).exists(!_.acceptsRetract) =>
        val column = getters(i).field.name
        s"aggregate function '${aggs(i).get.fn.name}' of column '$column' cannot retract the " +
          s"${RowKind.shortString(kind)} record of a delete or update: set 'fields.$column.ignore-retract' to skip such " +
          "records for the column, 'ignore-delete' to drop them" +
          (if (kind == RowKind.Delete) ", or 'aggregation.remove-record-on-delete' to remove the whole row on delete" else "")
    }

  override def add(kv: KeyValue): Unit = {
    val retract = RowKind.isRetract(kv.valueKind)
    if (retract && ignoreDelete) return
    latest = kv.copy()
    if (retract && removeRecordOnDelete && kv.valueKind == RowKind.Delete) {
      row = new Array[Any](getters.length)
      aggs.foreach(_.foreach(_.reset()))
      deleted = true
      removedBy = latest
      return
    }
    deleted = false
    var i = 0
    while (i < getters.length) {
      val input = getters(i).get(latest.value)
      row(i) = aggs(i) match {
        case None => if (retract && input == null) row(i) else input
        case Some(a) => if (retract) a.retract(row(i), input) else a.agg(row(i), input)
      }
      i += 1
    }
  }

  override def result(): Option[KeyValue] =
    if (latest == null || deleted) None
    else Some(new KeyValue(latest.key, latest.sequenceNumber, RowKind.Insert, new GenericInternalRow(row)))

  override def resultKeepingDelete(): Seq[KeyValue] =
    if (latest != null && deleted) Seq(latest)
    else if (removedBy != null) removedBy +: result().toSeq
    else result().toSeq
}
