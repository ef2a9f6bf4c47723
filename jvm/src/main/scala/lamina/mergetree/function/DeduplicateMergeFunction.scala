package lamina.mergetree.function

import lamina.mergetree.{KeyValue, MergeFunction, RowKind}

/** merge-engine = deduplicate: the last record wins; when it is a retract (-U, -D) the key is gone.
 *  With `ignoreDelete`, retract records are skipped as if never written. */
final class DeduplicateMergeFunction(ignoreDelete: Boolean) extends MergeFunction {
  private var latest: KeyValue = _

  override def reset(): Unit = latest = null

  override def add(kv: KeyValue): Unit =
    if (!(ignoreDelete && RowKind.isRetract(kv.valueKind))) latest = if (inputsStay) kv else kv.copy()

  override def result(): Option[KeyValue] = if (latest != null && latest.isAdd) Some(latest) else None

  override def resultKeepingDelete(): Seq[KeyValue] = Option(latest).toSeq

  override def singleInsertIsResult: Boolean = true
}
