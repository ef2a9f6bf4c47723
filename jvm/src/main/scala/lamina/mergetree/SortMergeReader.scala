package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

/** K-way merge of sorted runs. Each input iterator yields records in ascending (key, sequence number)
 *  order; runs may overlap or not. Records are drawn in ascending (key, sequence number, run index)
 *  order from a binary min-heap of run heads, each key's records are fed to the merge function, and
 *  one merged record per surviving key is produced, in ascending key order.
 *
 *  Input iterators may reuse their KeyValue between `next()` calls: only the current head of each run
 *  is looked at, and a head is handed to the merge function (which copies what it keeps) before its
 *  run advances. Returned KeyValues may be reused by the next call: copy to keep. */
object SortMergeReader {

  /** Merged records with deleted keys left out: the view of a reader or of compaction to the top level. */
  def merge(runs: Seq[Iterator[KeyValue]], keyOrdering: Ordering[InternalRow], mf: MergeFunction): Iterator[KeyValue] =
    merge(runs, keyOrdering, mf, dropDelete = true)

  /** With `dropDelete = false` each key yields [[MergeFunction.resultKeepingDelete]]: a deleted key
   *  its retract record, and a key removed then written again both records, as compaction into a
   *  level below the top must. */
  def merge(
      runs: Seq[Iterator[KeyValue]],
      keyOrdering: Ordering[InternalRow],
      mf: MergeFunction,
      dropDelete: Boolean): Iterator[KeyValue] =
    new MergeIterator(runs.toArray, keyOrdering, mf, dropDelete, uniqueKeysPerRun = false)

  /** As [[merge]], for runs whose keys are strictly increasing (no key twice in a run, as in
   *  Paimon's data files): a key found in one run only, as an insert, is handed out as it is when
   *  the merge function would return it unchanged ([[MergeFunction.singleInsertIsResult]]),
   *  without copying it. */
  def mergeUniqueRuns(
      runs: Seq[Iterator[KeyValue]],
      keyOrdering: Ordering[InternalRow],
      mf: MergeFunction,
      dropDelete: Boolean): Iterator[KeyValue] =
    new MergeIterator(runs.toArray, keyOrdering, mf, dropDelete, uniqueKeysPerRun = true)

  private final class MergeIterator(
      runs: Array[Iterator[KeyValue]],
      ord: Ordering[InternalRow],
      mf: MergeFunction,
      dropDelete: Boolean,
      uniqueKeysPerRun: Boolean) extends Iterator[KeyValue] {

    private val passThrough = uniqueKeysPerRun && mf.singleInsertIsResult
    /** A run whose head was handed out as it is: it advances at the next call. */
    private var deferred = -1

    private val heads = new Array[KeyValue](runs.length)
    /** Indices of runs with a head, as a binary min-heap on the heads. */
    private val heap = new Array[Int](runs.length)
    private var heapSize = 0
    private var pending: KeyValue = _
    private var ready = false
    /** Further records of the current key (only with dropDelete = false). */
    private var more: Iterator[KeyValue] = Iterator.empty

    runs.indices.foreach { i =>
      if (runs(i).hasNext) {
        heads(i) = runs(i).next()
        heap(heapSize) = i
        heapSize += 1
        siftUp(heapSize - 1)
      }
    }

    override def hasNext: Boolean = {
      if (!ready) advance()
      pending != null
    }

    override def next(): KeyValue = {
      if (!hasNext) throw new NoSuchElementException("no more merged records")
      ready = false
      pending
    }

    private def advance(): Unit = {
      pending = null
      if (deferred >= 0) { pop(deferred); deferred = -1 }
      if (more.hasNext) {
        pending = more.next()
        ready = true
        return
      }
      while (pending == null && heapSize > 0) {
        if (passThrough && RowKind.isAdd(heads(heap(0)).valueKind) && aloneInHeap()) {
          pending = heads(heap(0))
          deferred = heap(0)
          ready = true
          return
        }
        val groupKey = heads(heap(0)).key.copy()
        mf.reset()
        var sameKey = true
        while (sameKey) {
          val run = heap(0)
          mf.add(heads(run))
          pop(run)
          sameKey = heapSize > 0 && ord.compare(heads(heap(0)).key, groupKey) == 0
        }
        if (dropDelete) {
          val merged = mf.result()
          if (merged.isDefined) pending = merged.get
        } else {
          val merged = mf.resultKeepingDelete()
          if (merged.nonEmpty) {
            pending = merged.head
            more = merged.iterator.drop(1)
          }
        }
      }
      ready = true
    }

    /** Whether no other run's head has the root's key (the next-smallest head is a child of the root). */
    private def aloneInHeap(): Boolean = {
      val key = heads(heap(0)).key
      (heapSize < 2 || ord.compare(heads(heap(1)).key, key) != 0) &&
        (heapSize < 3 || ord.compare(heads(heap(2)).key, key) != 0)
    }

    /** Advances `run`, whose head is the root of the heap. */
    private def pop(run: Int): Unit = {
      if (runs(run).hasNext) {
        heads(run) = runs(run).next()
        siftDown(0)
      } else {
        heads(run) = null
        heapSize -= 1
        if (heapSize > 0) {
          heap(0) = heap(heapSize)
          siftDown(0)
        }
      }
    }

    private def less(a: Int, b: Int): Boolean = {
      val c = ord.compare(heads(a).key, heads(b).key)
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
