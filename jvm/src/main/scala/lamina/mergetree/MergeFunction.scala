package lamina.mergetree

/** Merges all records of one key, fed in ascending (key, sequence number) order.
 *  Invariant: the result depends only on the records added since the last [[reset]].
 *
 *  Records handed to [[add]] may be reused by their source after the call returns, and
 *  implementations copy whatever they keep, unless [[inputsStay]] is set. The returned KeyValue may
 *  be reused by the next [[reset]]. */
trait MergeFunction {

  /** Set by a merge that keeps every record it hands to [[add]] unchanged until the result has been
   *  consumed: a function may then keep the records themselves instead of copies. */
  var inputsStay: Boolean = false

  def reset(): Unit

  /** Why this function could not merge a record of retract kind `kind` (-U or -D), which a writer
   *  then refuses before it reaches a file, or None. */
  def retractRefusal(kind: Byte): Option[String] = None

  def add(kv: KeyValue): Unit

  /** The merged row, or None when the key has no row (it was deleted). */
  def result(): Option[KeyValue]

  /** What compaction into a level below the top writes for the key, in sequence order: like
   *  [[result]], but a deleted key comes back as its retract record (kind -D) instead of nothing, or an
   *  older level's row would reappear. When the key was removed and then written again, both the -D
   *  and the new row are kept, so that the new row does not merge with the older levels' row.
   *  Engines whose records never delete the key return [[result]]. */
  def resultKeepingDelete(): Seq[KeyValue] = result().toSeq

  /** Whether a key's only record, an insert, is its result unchanged (so a merge may skip this
   *  function for it). */
  def singleInsertIsResult: Boolean = false

  /** Whether this function is told the level each record comes from ([[atLevel]]). */
  def wantsLevel: Boolean = false

  /** Called, when [[wantsLevel]] and the merge knows its runs' levels, before each [[add]] with the
   *  level of the record's sorted run. */
  def atLevel(level: Int): Unit = ()
}
