package lamina.mergetree

/** One sorted run as a merge reads it: its records in ascending (key, sequence number) order, one
 *  at a time. The current record, and whatever it references, is valid until the next [[advance]]. */
trait RunCursor {

  /** Moves to the next record; false when the run is exhausted. */
  def advance(): Boolean

  /** The current record. */
  def current: KeyValue

  /** The current key in its long form (only asked for when the merge's [[KeyOrder]] has one). */
  def keyAsLong: Long

  // A run read in blocks (columnar batches) can hand a whole block to a reader that takes it as it
  // is; runs read record by record have no blocks.

  /** Whether the current record is the first of a block that [[blockLastKeyAsLong]] and
   *  [[skipBlock]] describe. */
  def atBlockStart: Boolean = false

  /** The long form of the last key of the current block. */
  def blockLastKeyAsLong: Long = throw new UnsupportedOperationException("a run without blocks")

  /** Whether every record of the current block is of an add kind. */
  def blockAllAdds: Boolean = false

  /** Moves to the first record after the current block; false when the run is exhausted. */
  def skipBlock(): Boolean = throw new UnsupportedOperationException("a run without blocks")
}

object RunCursor {

  /** A cursor over an iterator of records. */
  def of(records: Iterator[KeyValue], order: KeyOrder): RunCursor = new RunCursor {
    private val longKey = order.asLong.orNull
    private var kv: KeyValue = _
    override def advance(): Boolean =
      if (records.hasNext) { kv = records.next(); true }
      else { kv = null; false }
    override def current: KeyValue = kv
    override def keyAsLong: Long = longKey(kv.key)
  }
}
