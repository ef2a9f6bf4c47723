package lamina.mergetree.function

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import lamina.errors.BadInputException
import lamina.mergetree.{KeyValue, MergeFunction, RowKind}

/** A sequence group of partial-update: the columns `members` change only together with, and in the
 *  order of, the sequence columns `seqFields` (compared in order, NULL first). */
private[mergetree] final class SequenceGroup(val seqFields: Array[Int], orderings: Array[Ordering[Any]], val members: Set[Int]) {
  def contains(i: Int): Boolean = members.contains(i) || seqFields.contains(i)

  /** True when every sequence column of the record is NULL: the record does not touch the group. */
  def isEmptyIn(value: Array[Any]): Boolean = seqFields.forall(value(_) == null)

  /** Compares the record's sequence columns with the stored row's. */
  def compare(value: Array[Any], row: Array[Any]): Int = {
    var i = 0
    var c = 0
    while (c == 0 && i < seqFields.length) {
      c = orderings(i).compare(value(seqFields(i)), row(seqFields(i)))
      i += 1
    }
    c
  }
}

/** merge-engine = partial-update: later records overwrite the stored row with their non-NULL
 *  columns; NULLs do not overwrite.
 *
 *  Retract records (-U, -D): dropped with `ignoreDelete`; with `removeRecordOnDelete` a -D removes the
 *  row (later records of the key start from an empty row) and a -U is dropped; with sequence groups a
 *  retract withdraws the columns of each group whose sequence advances (they become NULL, or are
 *  retracted by their aggregate function) and moves the group's sequence; otherwise a retract is an error.
 *
 *  Sequence groups: a column of a group is written, NULL included, only when the record's group
 *  sequence is not all NULL and is >= the stored one. Columns of a group may carry an aggregate
 *  function (`groupAggs`), which then folds the values instead of overwriting. Columns outside every
 *  group follow the plain rule. */
final class PartialUpdateMergeFunction private[mergetree] (
    getters: Array[FieldGetter],
    groups: Array[Option[SequenceGroup]],
    groupAggs: Array[Option[ColumnAggregation]],
    keyFields: Array[Int],
    ignoreDelete: Boolean,
    removeRecordOnDelete: Boolean,
    table: String)
  extends MergeFunction {

  private val n = getters.length
  private val hasGroups = groups.exists(_.isDefined)
  private var row: Array[Any] = _
  private var latest: KeyValue = _
  private var deleted = false

  /** The last -D that removed the row, when records came after it. */
  private var removedBy: KeyValue = _

  override def reset(): Unit = {
    row = new Array[Any](n)
    groupAggs.foreach(_.foreach(_.reset()))
    latest = null
    deleted = false
    removedBy = null
  }

  override def retractRefusal(kind: Byte): Option[String] =
    if (ignoreDelete || hasGroups || removeRecordOnDelete) None
    else Some(s"merge-engine partial-update cannot apply the ${RowKind.shortString(kind)} " +
      "record of a delete or update: set 'ignore-delete' to drop such records, " +
      "'partial-update.remove-record-on-delete' to remove the whole row on delete, or " +
      "'fields.<seq>.sequence-group' to retract the columns of sequence groups")

  override def add(kv: KeyValue): Unit = {
    val retract = RowKind.isRetract(kv.valueKind)
    if (retract) {
      if (ignoreDelete) return
      if (!hasGroups) {
        retractRefusal(kv.valueKind).foreach(why => throw new BadInputException(s"Table $table: $why"))
        if (kv.valueKind == RowKind.Delete) {
          latest = kv.copy()
          row = new Array[Any](n)
          groupAggs.foreach(_.foreach(_.reset()))
          deleted = true
          removedBy = latest
        }
        return
      }
      latest = kv.copy()
      deleted = false
      val v = values(latest)
      keyFields.foreach(k => row(k) = v(k))
      retractWithGroups(v)
      return
    }
    latest = kv.copy()
    deleted = false
    val v = values(latest)
    if (hasGroups) updateWithGroups(v)
    else {
      var i = 0
      while (i < n) { if (v(i) != null) row(i) = v(i); i += 1 }
    }
  }

  private def values(kv: KeyValue): Array[Any] = {
    val v = new Array[Any](n)
    var i = 0
    while (i < n) { v(i) = getters(i).get(kv.value); i += 1 }
    v
  }

  private def updateWithGroups(v: Array[Any]): Unit = {
    var i = 0
    while (i < n) {
      groups(i) match {
        case None =>
          if (v(i) != null) row(i) = v(i)
        case Some(g) if !g.isEmptyIn(v) =>
          val agg = groupAggs(i)
          if (g.compare(v, row) >= 0) {
            if (g.seqFields.contains(i)) g.seqFields.foreach(f => row(f) = v(f))
            else row(i) = agg.fold(v(i))(_.agg(row(i), v(i)))
          } else agg.foreach(a => row(i) = a.aggReversed(row(i), v(i)))
        case _ =>
      }
      i += 1
    }
  }

  private def retractWithGroups(v: Array[Any]): Unit = {
    val movedSeq = new Array[Boolean](n)
    var i = 0
    while (i < n) {
      groups(i) match {
        case Some(g) if !g.isEmptyIn(v) =>
          val agg = groupAggs(i)
          if (g.compare(v, row) >= 0) {
            if (g.seqFields.contains(i)) {
              g.seqFields.foreach { f => if (!movedSeq(f)) { row(f) = v(f); movedSeq(f) = true } }
            } else row(i) = agg.fold(null: Any)(_.retract(row(i), v(i)))
          } else agg.foreach(a => row(i) = a.retractReversed(row(i), v(i)))
        case _ =>
      }
      i += 1
    }
  }

  override def result(): Option[KeyValue] =
    if (latest == null || deleted) None
    else Some(new KeyValue(latest.key, latest.sequenceNumber, RowKind.Insert, new GenericInternalRow(row.clone())))

  override def resultKeepingDelete(): Seq[KeyValue] =
    if (latest != null && deleted) Seq(latest)
    else if (removedBy != null) removedBy +: result().toSeq
    else result().toSeq
}
