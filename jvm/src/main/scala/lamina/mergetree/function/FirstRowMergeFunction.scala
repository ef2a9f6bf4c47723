package lamina.mergetree.function

import lamina.mergetree.{KeyValue, MergeFunction, RowKind}

/** merge-engine = first-row: the first added row wins and later records of the key are ignored.
 *  Retract records are ignored when read (a first row, once written, is never withdrawn); writers
 *  refuse them, unless 'ignore-delete' drops them first, as Paimon's writers do. */
final class FirstRowMergeFunction extends MergeFunction {
  private var first: KeyValue = _

  override def reset(): Unit = first = null

  override def retractRefusal(kind: Byte): Option[String] =
    Some(s"merge-engine first-row keeps the first row of each key and cannot apply the ${RowKind.shortString(kind)} " +
      "record of a delete or update: set 'ignore-delete' to drop such records")

  override def add(kv: KeyValue): Unit =
    if (first == null && RowKind.isAdd(kv.valueKind)) first = if (inputsStay) kv else kv.copy()

  override def result(): Option[KeyValue] = Option(first)

  override def singleInsertIsResult: Boolean = true
}
