package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

/** A compaction's merge of one key that also emits the key's changelog ([[CompactionChangelog]]):
 *  the merge tells the level of each record ([[atLevel]]); `lookedUp` gives the key's row found in the
 *  levels the compaction leaves alone (by the [[LookupMergeFunction]] that `inner` is, in lookup
 *  compaction), which is the key's row before unless an input above level 0 holds a newer one. Once
 *  the merge result is asked for, `emit` gets the changelog records with their kinds, in order. */
final class ChangelogMergeFunction(
    inner: MergeFunction,
    mode: CompactionChangelog,
    equalRows: (InternalRow, InternalRow) => Boolean,
    emit: (Byte, KeyValue) => Unit,
    lookedUp: () => Option[KeyValue] = () => None)
  extends MergeFunction {

  private var level = 0
  private var before: KeyValue = _
  private var sawLevel0 = false
  private var emitted = false

  override def wantsLevel: Boolean = true

  override def atLevel(l: Int): Unit = {
    level = l
    inner.atLevel(l)
  }

  override def reset(): Unit = {
    inner.inputsStay = inputsStay
    inner.reset()
    before = null
    sawLevel0 = false
    emitted = false
  }

  override def retractRefusal(kind: Byte): Option[String] = inner.retractRefusal(kind)

  override def add(kv: KeyValue): Unit = {
    mode match {
      case _: CompactionChangelog.Lookup =>
        if (level == 0) sawLevel0 = true else before = kept(kv)
      case CompactionChangelog.Full(_, maxLevel) =>
        if (level == maxLevel) before = kept(kv)
    }
    inner.add(kv)
  }

  private def kept(kv: KeyValue): KeyValue = if (inputsStay) kv else kv.copy()

  override def result(): Option[KeyValue] = {
    val r = inner.result()
    changes(r)
    r
  }

  override def resultKeepingDelete(): Seq[KeyValue] = {
    val rs = inner.resultKeepingDelete()
    changes(rs.lastOption)
    rs
  }

  /** Every key is merged here (its changelog needs it), single inserts too. */
  override def singleInsertIsResult: Boolean = false

  private def changes(result: Option[KeyValue]): Unit = {
    if (emitted) return
    emitted = true
    val relevant = mode match {
      case _: CompactionChangelog.Lookup => sawLevel0
      case _: CompactionChangelog.Full => true
    }
    if (!relevant) return
    val b = Option(before).orElse(lookedUp()).filter(_.isAdd)
    val a = result.filter(_.isAdd)
    (b, a) match {
      case (None, Some(after)) => emit(RowKind.Insert, after)
      case (Some(old), None) => if (!mode.firstRow) emit(RowKind.Delete, old)
      case (Some(old), Some(after)) =>
        if (!mode.firstRow && !(mode.dropsEqualPairs && equalRows(old.value, after.value))) {
          emit(RowKind.UpdateBefore, old)
          emit(RowKind.UpdateAfter, after)
        }
      case (None, None) =>
    }
  }
}
