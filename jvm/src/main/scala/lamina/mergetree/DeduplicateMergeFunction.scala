package lamina.mergetree

/** merge-engine = deduplicate: the last record wins; when it is a retract (-U, -D) the key is gone.
 *  With `ignoreDelete`, retract records are skipped as if never written. */
final class DeduplicateMergeFunction(ignoreDelete: Boolean) extends MergeFunction {
  private var latest: KeyValue = _

  override def reset(): Unit = latest = null

  override def add(kv: KeyValue): Unit =
    if (!(ignoreDelete && RowKind.isRetract(kv.valueKind))) latest = kv.copy()

  override def result(): Option[KeyValue] = Option(latest).filter(_.isAdd)

  override def resultKeepingDelete(): Option[KeyValue] = Option(latest)
}

/** merge-engine = first-row: the first added row wins and later records of the key are ignored.
 *  Retract records are ignored: a first row, once written, is never withdrawn. */
final class FirstRowMergeFunction extends MergeFunction {
  private var first: KeyValue = _

  override def reset(): Unit = first = null

  override def add(kv: KeyValue): Unit =
    if (first == null && RowKind.isAdd(kv.valueKind)) first = kv.copy()

  override def result(): Option[KeyValue] = Option(first)
}
