package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

/** K-way merge of sorted runs. Each input iterator yields records in ascending (key, sequence number)
 *  order; runs may overlap or not. Records are drawn in ascending (key, sequence number, run index)
 *  order from a binary min-heap of run heads, each key's records are fed to the merge function, and
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
      dropDelete: Boolean, finalKinds: Boolean = false): MergeIterator =
    new MergeIterator(runs.toArray, order, mf, dropDelete, uniqueKeysPerRun = true, finalKinds)

  /** The merge over a binary min-heap of run indices ordered by their heads' (key, sequence number,
   *  run index). The root's smaller child (`second`) is remembered: while the root's run keeps
   *  yielding records that precede it, the run is streamed with one comparison per record and the
   *  heap is left alone, so runs that do not overlap cost no more than concatenating them. */
  final class MergeIterator private[SortMergeReader] (
      runs: Array[RunCursor],
      order: KeyOrder,
      mf: MergeFunction,
      dropDelete: Boolean,
      uniqueKeysPerRun: Boolean,
      finalKinds: Boolean = false) extends Iterator[KeyValue] {

    private val ord = order.ordering
    /** The heads' keys as longs, when the key has a long form. */
    private val keys = if (order.asLong.isDefined) new Array[Long](runs.length) else null

    private val passThrough = uniqueKeysPerRun && mf.singleInsertIsResult
    /** Whether the root's run advances at the next call (its head was handed out, or merged alone). */
    private var deferred = false
    /** Runs taken out of the heap, unadvanced, while their heads are merged (unique-key runs only):
     *  they return at the next call, so the merged records stay valid without copies. */
    private val parked = new Array[Int](runs.length)
    private var parkedCount = 0
    mf.inputsStay = uniqueKeysPerRun

    private val heads = new Array[KeyValue](runs.length)
    /** Indices of runs with a head, as a binary min-heap on the heads. */
    private val heap = new Array[Int](runs.length)
    private var heapSize = 0
    /** The run at the root's smaller child, or -1 when the root is alone. */
    private var second = -1
    private var pending: KeyValue = _
    private var ready = false
    /** Further records of the current key (only with dropDelete = false). */
    private var more: Iterator[KeyValue] = Iterator.empty
    private var groupLong = 0L
    private var groupRow: InternalRow = _

    runs.indices.foreach { i =>
      if (load(i)) {
        heap(heapSize) = i
        heapSize += 1
        siftUp(heapSize - 1)
      }
    }
    updateSecond()

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
      } else heads(run) = null
      more
    }

    private def advance(): Unit = {
      pending = null
      if (more.hasNext) {
        pending = more.next()
        ready = true
        return
      }
      if (deferred) { advanceRoot(); deferred = false }
      if (parkedCount > 0) unpark()
      while (pending == null && heapSize > 0) {
        val root = heap(0)
        mf.reset()
        if (uniqueKeysPerRun) {
          // a run holds a key once: the key's records are the heads equal to the root's
          if (second < 0 || compareKeys(second, root) != 0) {
            if (passThrough && RowKind.isAdd(heads(root).valueKind)) {
              pending = heads(root)
              deferred = true
              ready = true
              return
            }
            mf.add(heads(root))
            deferred = true
          } else {
            // park the runs of the key: the first parked head keeps the key valid for comparison
            while ({ parkRoot(); heapSize > 0 && compareKeys(heap(0), parked(0)) == 0 }) ()
            var i = 0
            while (i < parkedCount) { mf.add(heads(parked(i))); i += 1 }
          }
        } else {
          rememberKey(root)
          var sameKey = true
          while (sameKey) {
            mf.add(heads(heap(0)))
            advanceRoot()
            sameKey = heapSize > 0 && hasGroupKey(heap(0))
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
        if (pending == null) {
          if (deferred) { advanceRoot(); deferred = false }
          if (parkedCount > 0) unpark()
        }
      }
      ready = true
    }

    /** Between records (before `hasNext` looks ahead): the run whose whole current block comes next,
     *  when no other run has a key up to the block's last key and every record of it is an add that
     *  is its own merge result (unique-key runs of an engine that returns a single insert as it is,
     *  with long keys); else -1. The caller takes the block as it is, then calls [[skipBlock]]. */
    def blockRun(): Int = {
      if (ready || more.hasNext || !passThrough || keys == null) return -1
      if (deferred) { advanceRoot(); deferred = false }
      if (parkedCount > 0) unpark()
      if (heapSize == 0) return -1
      val root = heap(0)
      val c = runs(root)
      if (c.atBlockStart && (second < 0 || c.blockLastKeyAsLong < keys(second)) && c.blockAllAdds) root else -1
    }

    /** Moves `run`, which [[blockRun]] returned, past its block. */
    def skipBlock(run: Int): Unit = {
      require(heapSize > 0 && heap(0) == run, s"run $run is not the one whose block was taken")
      rootMoved(headMoved(run, runs(run).skipBlock()))
    }

    private def rememberKey(run: Int): Unit =
      if (keys != null) groupLong = keys(run) else groupRow = heads(run).key.copy()

    private def hasGroupKey(run: Int): Boolean =
      if (keys != null) keys(run) == groupLong else ord.compare(heads(run).key, groupRow) == 0

    /** Takes the root out of the heap without advancing its run. */
    private def parkRoot(): Unit = {
      parked(parkedCount) = heap(0)
      parkedCount += 1
      heapSize -= 1
      if (heapSize > 0) {
        heap(0) = heap(heapSize)
        siftDown(0)
      }
      updateSecond()
    }

    /** Advances the parked runs and puts those with records back into the heap. */
    private def unpark(): Unit = {
      var i = 0
      while (i < parkedCount) {
        val run = parked(i)
        if (load(run)) {
          heap(heapSize) = run
          heapSize += 1
          siftUp(heapSize - 1)
        }
        i += 1
      }
      parkedCount = 0
      updateSecond()
    }

    /** Advances the root's run and restores the heap. */
    private def advanceRoot(): Unit = rootMoved(load(heap(0)))

    /** Restores the heap after the root's run moved (`more` = it still has a head). */
    private def rootMoved(more: Boolean): Unit = {
      val run = heap(0)
      if (more) {
        // the new head still precedes every other head: nothing below the root changes
        if (second < 0 || less(run, second)) return
        siftDown(0)
      } else {
        heapSize -= 1
        if (heapSize > 0) {
          heap(0) = heap(heapSize)
          siftDown(0)
        }
      }
      updateSecond()
    }

    private def updateSecond(): Unit =
      second = if (heapSize < 2) -1 else if (heapSize < 3 || less(heap(1), heap(2))) heap(1) else heap(2)

    private def compareKeys(a: Int, b: Int): Int =
      if (keys != null) java.lang.Long.compare(keys(a), keys(b)) else ord.compare(heads(a).key, heads(b).key)


    private def less(a: Int, b: Int): Boolean = {
      val c = compareKeys(a, b)
      if (c != 0) c < 0
      else {
        val s = java.lang.Long.compare(heads(a).sequenceNumber, heads(b).sequenceNumber)
        if (s != 0) s < 0 else a < b
      }
    }

    private def siftUp(start: Int): Unit = {
      var i = start
      while (i > 0) {
        val parent = (i - 1) >>> 1
        if (less(heap(i), heap(parent))) { swap(i, parent); i = parent }
        else return
      }
    }

    private def siftDown(start: Int): Unit = {
      var i = start
      while (true) {
        val l = 2 * i + 1
        if (l >= heapSize) return
        val r = l + 1
        val smallest = if (r < heapSize && less(heap(r), heap(l))) r else l
        if (less(heap(smallest), heap(i))) { swap(i, smallest); i = smallest }
        else return
      }
    }

    private def swap(a: Int, b: Int): Unit = {
      val t = heap(a); heap(a) = heap(b); heap(b) = t
    }
  }
}
