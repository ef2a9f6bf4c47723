package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

/** K-way merge of sorted runs. Each input iterator yields records in ascending (key, sequence number)
 *  order; runs may overlap or not. Records are drawn in ascending (key, sequence number, run index)
 *  order from a loser tree of run heads, each key's records are fed to the merge function, and
 *  one merged record per surviving key is produced, in ascending key order.
 *
 *  Input iterators may reuse their KeyValue between `next()` calls: only the current head of each run
 *  is looked at. [[merge]] hands a head to the merge function (which copies what it keeps) before its
 *  run advances; [[mergeUniqueRuns]] advances the runs of a key only at the next call, so merge
 *  functions may keep the heads themselves ([[MergeFunction.inputsStay]]). Returned KeyValues may be
 *  reused by the next call: copy to keep. */
object SortMergeReader {

  /** Merged records with deleted keys (and results of a retract kind) left out: the view of a reader
   *  or of compaction to the top level. */
  def merge(runs: Seq[Iterator[KeyValue]], keyOrdering: Ordering[InternalRow], mf: MergeFunction): Iterator[KeyValue] =
    merge(runs, KeyOrder.general(keyOrdering), mf, dropDelete = true)

  def merge(runs: Seq[Iterator[KeyValue]], keyOrdering: Ordering[InternalRow], mf: MergeFunction,
      dropDelete: Boolean): Iterator[KeyValue] =
    merge(runs, KeyOrder.general(keyOrdering), mf, dropDelete)

  /** With `dropDelete = false` each key yields [[MergeFunction.resultKeepingDelete]]: a deleted key
   *  its retract record, and a key removed then written again both records, as compaction into a
   *  level below the top must. */
  def merge(runs: Seq[Iterator[KeyValue]], order: KeyOrder, mf: MergeFunction, dropDelete: Boolean): Iterator[KeyValue] =
    new MergeIterator(runs.map(RunCursor.of(_, order)).toArray, order, mf, dropDelete, uniqueKeysPerRun = false)

  def mergeUniqueRuns(runs: Seq[Iterator[KeyValue]], keyOrdering: Ordering[InternalRow], mf: MergeFunction,
      dropDelete: Boolean): Iterator[KeyValue] =
    mergeUniqueRuns(runs, KeyOrder.general(keyOrdering), mf, dropDelete)

  /** As [[merge]], for runs whose keys are strictly increasing (no key twice in a run, as in
   *  Paimon's data files): a key found in one run only, as an insert, is handed out as it is when
   *  the merge function would return it unchanged ([[MergeFunction.singleInsertIsResult]]),
   *  without copying it. */
  def mergeUniqueRuns(runs: Seq[Iterator[KeyValue]], order: KeyOrder, mf: MergeFunction,
      dropDelete: Boolean): Iterator[KeyValue] =
    mergeUniqueCursors(runs.map(RunCursor.of(_, order)), order, mf, dropDelete)

  /** [[mergeUniqueRuns]] over cursors. With `finalKinds` (and `dropDelete = false`), each key yields
   *  only the last record of [[MergeFunction.resultKeepingDelete]]: its row, or its retract record when
   *  it ends deleted; what a read of every level shows (the audit log), where no older level remains
   *  for a kept delete to shadow. */
  def mergeUniqueCursors(runs: Seq[RunCursor], order: KeyOrder, mf: MergeFunction,
      dropDelete: Boolean, finalKinds: Boolean = false, runLevels: Array[Int] = null): MergeIterator =
    new MergeIterator(runs.toArray, order, mf, dropDelete, uniqueKeysPerRun = true, finalKinds, runLevels)

  /** The merge as a [[LoserTree]] of run indices ordered by their heads' (key, sequence number, run
   *  index), where heads of equal keys tie; an exhausted run is out of the tree, after every head.
   *  While the winner's run keeps yielding records that precede the runner-up, the run is streamed
   *  with one comparison per record and the tree is left alone: runs that do not overlap are merged
   *  without replays. With unique-key runs, the runs of a key are the first ones of the tree: they are
   *  taken together, unadvanced, and each advances as the winner at the next call. */
  final class MergeIterator private[SortMergeReader] (
      runs: Array[RunCursor],
      order: KeyOrder,
      mf: MergeFunction,
      dropDelete: Boolean,
      uniqueKeysPerRun: Boolean,
      finalKinds: Boolean = false,
      runLevels: Array[Int] = null)
    extends LoserTree(runs.length) with Iterator[KeyValue] {

    private val ord = order.ordering

    /** The heads' keys as longs, when the key has a long form. */
    private val keys = if (order.asLong.isDefined) new Array[Long](runs.length) else null

    private val passThrough = uniqueKeysPerRun && mf.singleInsertIsResult
    private val tellsLevel = runLevels != null && mf.wantsLevel

    /** How many runs, the first ones of the tree, advance at the next call (unique-key runs only): the
     *  runs of the key just handed out or merged, left unadvanced so that the merged records stay valid
     *  without copies. */
    private var deferred = 0

    /** The runs of the current key, when it is in more than one (unique-key runs only). */
    private val group = new Array[Int](runs.length)
    mf.inputsStay = uniqueKeysPerRun

    private val heads = new Array[KeyValue](runs.length)
    private var pending: KeyValue = _
    private var ready = false

    /** Further records of the current key (only with dropDelete = false). */
    private var more: Iterator[KeyValue] = Iterator.empty
    private var groupLong = 0L
    private var groupRow: InternalRow = _

    runs.indices.foreach(load)
    start()

    override def hasNext: Boolean = {
      if (!ready) advance()
      pending != null
    }

    override def next(): KeyValue = {
      if (!hasNext) throw new NoSuchElementException("no more merged records")
      ready = false
      pending
    }

    /** Makes the next record of `run` its head; false when the run is exhausted. */
    private def load(run: Int): Boolean = headMoved(run, runs(run).advance())

    /** Takes `run`'s current record as its head after the cursor moved (`more` = it has one). */
    private def headMoved(run: Int, more: Boolean): Boolean = {
      if (more) {
        heads(run) = runs(run).current
        if (keys != null) keys(run) = runs(run).keyAsLong
      } else {
        heads(run) = null
        if (keys != null) keys(run) = Long.MaxValue // after every head but one of that key: see [[before]]
      }
      more
    }

    private def advance(): Unit = {
      pending = null
      if (more.hasNext) {
        pending = more.next()
        ready = true
        return
      }
      advanceDeferred()
      while (pending == null && winner >= 0) {
        val root = winner
        mf.reset()
        if (uniqueKeysPerRun) {
          // a run holds a key once: the key's records are the heads of the first runs with the winner's key
          if (!winnerTies) {
            deferred = 1
            if (passThrough && RowKind.isAdd(heads(root).valueKind)) {
              pending = heads(root)
              ready = true
              return
            }
            addFrom(root)
          } else {
            deferred = winnerAndTies(group)
            var i = 0
            while (i < deferred) { addFrom(group(i)); i += 1 }
          }
        } else {
          rememberKey(root)
          var sameKey = true
          while (sameKey) {
            addFrom(winner)
            advanceWinner()
            sameKey = winner >= 0 && hasGroupKey(winner)
          }
        }
        if (dropDelete) {
          // a result of a retract kind withdraws the key as well
          val merged = mf.result()
          if (merged.isDefined && merged.get.isAdd) pending = merged.get
        } else {
          val merged = mf.resultKeepingDelete()
          if (merged.nonEmpty) {
            pending = if (finalKinds) merged.last else merged.head
            if (!finalKinds) more = merged.iterator.drop(1)
          }
        }
        if (pending == null) advanceDeferred()
      }
      ready = true
    }

    /** Between records (before `hasNext` looks ahead): the run whose whole current block comes next,
     *  when no other run has a key up to the block's last key and every record of it is an add that
     *  is its own merge result (unique-key runs of an engine that returns a single insert as it is,
     *  with long keys); else -1. The caller takes the block as it is, then calls [[skipBlock]]. */
    def blockRun(): Int = {
      if (ready || more.hasNext || !passThrough || keys == null) return -1
      advanceDeferred()
      val root = winner
      if (root < 0) return -1
      val c = runs(root)
      if (c.atBlockStart && { val second = runnerUp; second < 0 || c.blockLastKeyAsLong < keys(second) } &&
        c.blockAllAdds) root
      else -1
    }

    /** Moves `run`, which [[blockRun]] returned, past its block. */
    def skipBlock(run: Int): Unit = {
      require(winner == run && run >= 0, s"run $run is not the one whose block was taken")
      winnerAdvanced(headMoved(run, runs(run).skipBlock()))
    }

    private def addFrom(run: Int): Unit = {
      if (tellsLevel) mf.atLevel(runLevels(run))
      mf.add(heads(run))
    }

    private def rememberKey(run: Int): Unit =
      if (keys != null) groupLong = keys(run) else groupRow = heads(run).key.copy()

    private def hasGroupKey(run: Int): Boolean =
      if (keys != null) keys(run) == groupLong else ord.compare(heads(run).key, groupRow) == 0

    /** Advances the runs of the key last handed out or merged, each the winner in its turn: they are
     *  the first runs of the tree, and a run, once advanced, is past their key. */
    private def advanceDeferred(): Unit = while (deferred > 0) { advanceWinner(); deferred -= 1 }

    /** Advances the winner's run and restores the tree. */
    private def advanceWinner(): Unit = winnerAdvanced(load(winner))

    /** Restores the tree after the winner's run moved (`more` = it still has a head). */
    private def winnerAdvanced(more: Boolean): Unit = if (more) winnerMoved() else winnerOut()

    override protected def out(run: Int): Boolean = heads(run) == null

    override protected def tie(a: Int, b: Int): Boolean =
      if (keys != null) keys(a) == keys(b) && heads(a) != null && heads(b) != null
      else heads(a) != null && heads(b) != null && ord.compare(heads(a).key, heads(b).key) == 0

    /** Heads by (key, sequence number, run index), an exhausted run after every head. */
    override protected def before(a: Int, b: Int): Boolean =
      if (keys != null) {
        val ka = keys(a)
        val kb = keys(b)
        if (ka != kb) ka < kb else headsBySequence(a, b)
      } else if (heads(a) == null || heads(b) == null) headsBySequence(a, b)
      else {
        val c = ord.compare(heads(a).key, heads(b).key)
        if (c != 0) c < 0 else headsBySequence(a, b)
      }

    /** [[before]] where the keys do not decide (equal, or an exhausted run's): a head before an
     *  exhausted run, heads by sequence number, then run index. */
    private def headsBySequence(a: Int, b: Int): Boolean =
      if (heads(a) == null || heads(b) == null) heads(b) == null && heads(a) != null
      else {
        val s = java.lang.Long.compare(heads(a).sequenceNumber, heads(b).sequenceNumber)
        if (s != 0) s < 0 else a < b
      }
  }
}
