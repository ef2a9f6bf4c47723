package lamina.mergetree

/** Merges all records of one key, fed in ascending (key, sequence number) order.
 *  Invariant: the result depends only on the records added since the last [[reset]].
 *
 *  Records handed to [[add]] may be reused by their source after the call returns; implementations
 *  copy whatever they keep. The returned KeyValue may be reused by the next [[reset]]. */
trait MergeFunction {
  def reset(): Unit

  def add(kv: KeyValue): Unit

  /** The merged row, or None when the key has no row (it was deleted). */
  def result(): Option[KeyValue]

  /** Like [[result]], but a deleted key comes back as a retract record (kind -D) instead of None.
   *  Compaction that does not write to the top level must keep these, or an older level's row would
   *  reappear. Engines whose records never delete the key return the same as [[result]]. */
  def resultKeepingDelete(): Option[KeyValue] = result()
}
