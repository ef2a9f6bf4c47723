package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import lamina.format.NullPaddedRow

/** The columnar batches of one data file, and where each column of the key-value layout (keys,
 *  sequence number, kind, table columns) is among the batch's columns (-1: not in the batch). When
 *  the batches carry no sequence number column, every record takes `sequenceNumber`. */
final case class FileBatches(batches: Iterator[ColumnarBatch], columnOf: Array[Int], sequenceNumber: Long = -1L)

/** A sorted run read as Spark's columnar batches, file after file: the current record's sequence
 *  number, kind and (for a single integral key) key are read straight from the column vectors; its
 *  key and value are views over the batch's current row, so a value column is decoded only when the
 *  merge function or the query asks for it.
 *
 *  With a key `range` (a single integral key only), each batch is cut to its rows inside the range,
 *  found by binary search (a file's keys ascend), and the run ends at its first key above the range:
 *  its later batches and files are never read. With `keys` (the same), each batch yields only the rows
 *  of those keys ([[LongKeys.select]]), and the run ends at its first key above the last of them.
 *
 *  @param valueFromLayout for each table column, its position in the key-value layout (a primary-key
 *                         column is read from its key column) */
final class KeyValueBatchCursor(
    files: Iterator[() => FileBatches],
    keyArity: Int,
    keySchema: StructType,
    valueSchema: StructType,
    valueFromLayout: Array[Int],
    longKey: Option[KeyOrder.LongKey],
    range: Option[KeyRange] = None,
    keys: Option[LongKeys] = None)
  extends RunCursor {
  require((range.isEmpty && keys.isEmpty) || longKey.isDefined, "a key range needs a single integral key")

  private val kv = new KeyValue(null, 0L, 0, null)
  private var batch: ColumnarBatch = _
  private var batches: Iterator[ColumnarBatch] = Iterator.empty
  private var rowId = 0
  private var numRows = 0
  private var seqVec: ColumnVector = _
  private var kindVec: ColumnVector = _
  private var keyVec: ColumnVector = _
  private var keyView: NullPaddedRow = _
  private var valueView: NullPaddedRow = _
  private var valueColumns: Array[Int] = _
  private val keyFromVector = longKey.orNull
  private var seqBatchColumn = -1
  private var kindBatchColumn = -1
  private var fileSequence = -1L
  private var keyBatchColumn = -1
  private val bounds = (range ++ keys.map(_.range)).reduceOption(_ intersect _)
  private val ranged = bounds.isDefined
  private val lower = bounds.fold(Long.MinValue)(_.lower)
  private val upper = bounds.fold(Long.MaxValue)(_.upper)
  private val chosen = keys.orNull
  private val selecting = keys.isDefined
  // with keys: the current batch's rows of those keys, and which of them is current
  private var selection: Array[Int] = Array.emptyIntArray
  private var selected = 0
  private var selectedAt = 0
  private val keyAt: Int => Long = i => keyFromVector(keyVec, i)

  /** The run holds no key of the range after the current batch. */
  private var pastRange = false

  override def advance(): Boolean = {
    if (selecting) {
      selectedAt += 1
      while (selectedAt >= selected) {
        if (!nextBatch()) return false
      }
      rowId = selection(selectedAt)
    } else {
      rowId += 1
      while (rowId >= numRows) {
        if (!nextBatch()) return false
      }
    }
    val row: InternalRow = batch.getRow(rowId)
    keyView.project(row)
    valueView.project(row)
    kv.sequenceNumber = if (seqVec ne null) seqVec.getLong(rowId) else fileSequence
    kv.valueKind = kindVec.getByte(rowId)
    true
  }

  private def nextBatch(): Boolean = {
    while (true) {
      while (!batches.hasNext) {
        if (pastRange || !files.hasNext) return false
        open(files.next()())
      }
      batch = batches.next()
      numRows = batch.numRows()
      rowId = 0
      // the batch's vectors are looked up once per batch
      seqVec = if (seqBatchColumn >= 0) batch.column(seqBatchColumn) else null
      kindVec = batch.column(kindBatchColumn)
      keyVec = batch.column(keyBatchColumn)
      allAddsKnown = false
      if (!ranged) return true
      val from = if (lower == Long.MinValue) 0 else firstAbove(lower - 1L)
      val to = if (upper == Long.MaxValue) numRows else firstAbove(upper)
      if (to < numRows) { pastRange = true; batches = Iterator.empty }
      if (from < to) {
        rowId = from
        numRows = to
        if (!selecting) return true
        if (selection.length < to) selection = new Array[Int](math.max(to, batch.numRows()))
        selected = chosen.select(keyAt, from, to, selection)
        chosen.leftOut += batch.numRows() - selected
        selectedAt = 0
        if (selected > 0) return true
      } else if (selecting) chosen.leftOut += batch.numRows()
      if (pastRange) return false
    }
    false
  }

  /** The first row of the batch whose key is above `bound` (the batch's size if none). */
  private def firstAbove(bound: Long): Int = {
    var lo = 0
    var hi = numRows
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (keyFromVector(keyVec, mid) <= bound) lo = mid + 1 else hi = mid
    }
    lo
  }

  private def open(f: FileBatches): Unit = {
    batches = f.batches
    val c = f.columnOf
    keyView = new NullPaddedRow(keySchema, Array.tabulate(keyArity)(c))
    valueColumns = valueFromLayout.map(i => c(i))
    valueView = new NullPaddedRow(valueSchema, valueColumns)
    kv.key = keyView
    kv.value = valueView
    seqBatchColumn = c(keyArity)
    kindBatchColumn = c(keyArity + 1)
    fileSequence = f.sequenceNumber
    keyBatchColumn = c(0)
  }

  override def current: KeyValue = kv

  override def keyAsLong: Long = keyFromVector(keyVec, rowId)

  // Blocks are the file's batches.

  /** The current batch: valid until the cursor leaves it. */
  def currentBatch: ColumnarBatch = batch

  /** Where table column `column` is among the current batch's columns (-1: not in the batch). */
  def batchColumnOfTableColumn(column: Int): Int = valueColumns(column)

  /** A batch cut by the key range, or to chosen keys, is no block: only whole batches are handed on
   *  as they are. */
  override def atBlockStart: Boolean =
    !selecting && rowId == 0 && numRows > 0 && (!ranged || numRows == batch.numRows())

  override def blockLastKeyAsLong: Long = keyFromVector(keyVec, numRows - 1)

  override def blockAllAdds: Boolean = {
    if (!allAddsKnown) {
      allAddsKnown = true
      allAdds = true
      var i = 0
      while (allAdds && i < numRows) { allAdds = RowKind.isAdd(kindVec.getByte(i)); i += 1 }
    }
    allAdds
  }
  // per batch: the reader refills one ColumnarBatch object, so the batch's identity tells nothing
  private var allAddsKnown = false
  private var allAdds = false

  override def skipBlock(): Boolean = {
    rowId = numRows - 1
    advance()
  }
}
