package lamina.mergetree

/** Lookup compaction's merge of one key (Paimon's lookup merge): before the key's first record, the
 *  key's live row in the levels the compaction does not rewrite is looked up (and marked deleted
 *  there, by `lookup`), and fed to the table's merge function first, as the oldest record; not for a
 *  key with a record above level 0 among the inputs, whose older rows were dealt with when that
 *  record was written. So the
 *  output holds the key's whole merged row, and the older row leaves its file through the file's
 *  deletion vector instead of a rewrite. `lookup` returns the old record (with its value when the
 *  merge or a changelog needs it), or None; with `feed` false the merge's result cannot depend on it,
 *  and it is only marked. [[lookedUp]] is the current key's old record. */
final class LookupMergeFunction(inner: MergeFunction, lookup: KeyValue => Option[KeyValue], feed: Boolean = true)
  extends MergeFunction {
  private var first = true
  private var level = 0
  private var found: Option[KeyValue] = None

  /** The old record the lookup found for the current key. */
  def lookedUp: Option[KeyValue] = found

  /** Levels are wanted: a key whose first record comes from above level 0 is not looked up. */
  override def wantsLevel: Boolean = true

  override def atLevel(l: Int): Unit = {
    level = l
    inner.atLevel(l)
  }

  override def reset(): Unit = {
    inner.inputsStay = inputsStay
    inner.reset()
    first = true
    found = None
  }

  override def retractRefusal(kind: Byte): Option[String] = inner.retractRefusal(kind)

  override def add(kv: KeyValue): Unit = {
    if (first) {
      first = false
      // records come oldest run first: a key whose first record lies above level 0 was looked up when
      // that record was written there (each compaction output holds the key's whole merged row, and with
      // deletion vectors its older rows are marked), so the older levels hold nothing it still needs
      found = if (level > 0) None else lookup(kv)
      found.filter(_ => feed).foreach { old =>
        inner.atLevel(LookupMergeFunction.LookedUpLevel)
        inner.add(old)
        inner.atLevel(level)
      }
    }
    inner.add(kv)
  }

  override def result(): Option[KeyValue] = inner.result()

  override def resultKeepingDelete(): Seq[KeyValue] = inner.resultKeepingDelete()

  /** Every key is looked up, single inserts too. */
  override def singleInsertIsResult: Boolean = false
}

object LookupMergeFunction {

  /** The level a looked-up row is said to come from: any level above 0 (it lies in a level the
   *  compaction leaves alone, all of which are above 0). */
  val LookedUpLevel: Int = Int.MaxValue
}
