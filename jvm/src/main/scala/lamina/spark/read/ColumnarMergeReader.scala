package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.{ConstantColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.apache.spark.unsafe.Platform

import lamina.mergetree.{KeyValueBatchCursor, KeyValueReaders, LongKeys, RunCursor, SortMergeReader}
import lamina.table.scan.KeySet

/** Merge-on-read of one primary-key split as columnar batches. Where one run alone holds the next
 *  whole batch of keys (no other run has a key up to its last, and each record is its own result),
 *  that batch of the file goes to Spark as it is, its columns picked; records that needed merging
 *  are copied into a batch of their own. Used when every column read is atomic, the key is a single
 *  integral column, and the engine returns a key's single insert unchanged (deduplicate). */
final class ColumnarMergeReader(
    cursors: IndexedSeq[RunCursor],
    merge: SortMergeReader.MergeIterator,
    required: StructType,
    columns: Array[Int],
    counters: ScanCounters = new ScanCounters)
  extends PartitionReader[ColumnarBatch] {

  private val capacity = 4096
  private val types = required.fields.map(_.dataType)
  private val out: Array[WritableColumnVector] = types.map(t => new OnHeapColumnVector(capacity, t))
  private val outBatch = new ColumnarBatch(out.map(v => v: ColumnVector))
  private var current: ColumnarBatch = _

  /** The run whose block was handed out last: it moves past the block at the next call. */
  private var handedOut = -1

  /** A run whose block comes after the merged records being handed out. */
  private var pending = -1

  override def next(): Boolean = {
    if (handedOut >= 0) { merge.skipBlock(handedOut); handedOut = -1 }
    if (pending >= 0) {
      current = blockOf(pending)
      handedOut = pending
      pending = -1
      return true
    }
    out.foreach(_.reset())
    var n = 0
    var stop = false
    while (!stop && n < capacity) {
      val run = merge.blockRun()
      if (run >= 0) {
        if (n == 0) {
          current = blockOf(run)
          handedOut = run
          return true
        }
        pending = run // handed out after the merged records
        stop = true
      } else if (merge.hasNext) {
        append(merge.next().value, n)
        n += 1
      } else stop = true
    }
    if (n == 0) return false
    outBatch.setNumRows(n)
    current = outBatch
    true
  }

  /** The current batch of `run`'s file, with the required columns picked (null where absent). */
  private def blockOf(run: Int): ColumnarBatch = {
    // only a batch cursor has blocks
    val c = cursors(run).asInstanceOf[KeyValueBatchCursor]
    val batch = c.currentBatch
    val vectors = new Array[ColumnVector](columns.length)
    var i = 0
    while (i < columns.length) {
      val at = c.batchColumnOfTableColumn(columns(i))
      vectors(i) =
        if (at >= 0) batch.column(at)
        else { val v = new ConstantColumnVector(batch.numRows(), types(i)); v.setNull(); v }
      i += 1
    }
    new ColumnarBatch(vectors, batch.numRows())
  }

  import ColumnarMergeReader._

  /** How each column is copied, decided once: the per-row copy then dispatches on an int. */
  private val kinds: Array[Int] = types.map(kindOf)

  private def append(value: InternalRow, n: Int): Unit = {
    var i = 0
    while (i < columns.length) {
      val from = columns(i)
      val v = out(i)
      if (value.isNullAt(from)) v.putNull(n)
      else {
        v.putNotNull(n)
        (kinds(i): @scala.annotation.switch) match {
          case BooleanKind => v.putBoolean(n, value.getBoolean(from))
          case ByteKind => v.putByte(n, value.getByte(from))
          case ShortKind => v.putShort(n, value.getShort(from))
          case IntKind => v.putInt(n, value.getInt(from))
          case LongKind => v.putLong(n, value.getLong(from))
          case FloatKind => v.putFloat(n, value.getFloat(from))
          case DoubleKind => v.putDouble(n, value.getDouble(from))
          case StringKind =>
            val s = value.getUTF8String(from)
            s.getBaseObject match {
              case a: Array[Byte] => v.putByteArray(n, a, (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, s.numBytes())
              case _ => v.putByteArray(n, s.getBytes)
            }
          case BinaryKind => v.putByteArray(n, value.getBinary(from))
          case _ =>
            val d = types(i).asInstanceOf[DecimalType]
            v.putDecimal(n, value.getDecimal(from, d.precision, d.scale), d.precision)
        }
      }
      i += 1
    }
  }

  override def get(): ColumnarBatch = current

  override def close(): Unit = {
    out.foreach(_.close())
    // a run read by lookups holds its local lookup files until exhausted or closed
    cursors.foreach { case c: java.io.Closeable => c.close(); case _ => }
  }

  override def currentMetricsValues(): Array[CustomTaskMetric] = counters.values
}

object ColumnarMergeReader {
  private final val BooleanKind = 0
  private final val ByteKind = 1
  private final val ShortKind = 2
  private final val IntKind = 3
  private final val LongKind = 4
  private final val FloatKind = 5
  private final val DoubleKind = 6
  private final val StringKind = 7
  private final val BinaryKind = 8
  private final val DecimalKind = 9

  /** How a column of type `t` is copied into a batch; -1 when it cannot be. */
  private def kindOf(t: DataType): Int = t match {
    case BooleanType => BooleanKind
    case ByteType => ByteKind
    case ShortType => ShortKind
    case IntegerType | DateType => IntKind
    case LongType | TimestampType | TimestampNTZType => LongKind
    case FloatType => FloatKind
    case DoubleType => DoubleKind
    case _: StringType => StringKind
    case BinaryType => BinaryKind
    case _: DecimalType => DecimalKind
    case _ => -1
  }

  /** Whether columns of this type can be merged into batches. */
  def supports(t: DataType): Boolean = kindOf(t) >= 0
}

/** Reads every split of a primary-key scan with a [[ColumnarMergeReader]]. */
class ColumnarMergeReaderFactory(kv: KeyValueReaders, required: StructType, chosen: Option[LongKeys] = None)
  extends PartitionReaderFactory with ReadsChosenKeys {

  override def forKeys(keys: RuntimeKeys.Sets): PartitionReaderFactory =
    ReadsChosenKeys.narrowed(kv, keys).fold[PartitionReaderFactory](this) {
      case (narrowed, chosenKeys) =>
        new ColumnarMergeReaderFactory(narrowed, required, Some(chosenKeys))
    }

  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new IllegalStateException("columnar merge reader factory asked for rows")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    val skip0 = kv.table.capabilities.skipsLevel0
    val (cursors, merge) = kv.mergedBlocks(split, skip0)
    // a merge reads every file of the split
    val counters = new ScanCounters
    counters.chosenKeys = chosen
    split.files.filter(f => !skip0 || f.level > 0).foreach(counters.opened)
    new ColumnarMergeReader(cursors, merge, required, required.fields.map(f => kv.table.schema.indexOf(f.name)), counters)
  }
}
