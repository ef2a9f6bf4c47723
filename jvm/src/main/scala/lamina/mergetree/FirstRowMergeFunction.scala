package lamina.mergetree

/** merge-engine = first-row: the first added row wins and later records of the key are ignored.
 *  Retract records are ignored: a first row, once written, is never withdrawn. */
final class FirstRowMergeFunction extends MergeFunction {
  private var first: KeyValue = _

  override def reset(): Unit = first = null

  override def add(kv: KeyValue): Unit =
    if (first == null && RowKind.isAdd(kv.valueKind)) first = if (inputsStay) kv else kv.copy()

  override def result(): Option[KeyValue] = Option(first)

  override def singleInsertIsResult: Boolean = true
}
