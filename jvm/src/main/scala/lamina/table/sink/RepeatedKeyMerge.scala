package lamina.table.sink

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}

import lamina.mergetree.{KeyOrder, KeyValue, KeyValueFileWriter, MergeFunction}
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.types.SparkTypes

/** The records one write task hands one (partition, bucket) arrive sorted by key; a key written more
 *  than once in the write (a DataFrame or stream batch with repeated keys) is merged here, with the
 *  table's merge function, before it reaches `out`, as Paimon's write buffer merges: a file holds a
 *  key once, and without this every repeat would start a new file. The merged records are the key's
 *  records of this write in arrival order (their sequence numbers); the result is what compaction
 *  would make of them (a delete followed by a new row stays two records). Each record is held until
 *  the next key arrives. Not thread-safe: one per writer. */
final class RepeatedKeyMerge(table: FileStoreTable, out: KeyValueFileWriter, mf: MergeFunction) {
  private val layout = KeyValueLayout(table.schema)
  private val keyTypes = layout.keyFields.map(f => SparkTypes.toSpark(f.dataType))
  private val keyOf = UnsafeProjection.create(layout.keyOrdinals.toSeq.zip(keyTypes).map {
    case (o, t) => BoundReference(o, t, nullable = false)
  })
  private val ordering = KeyOrder.orderingOf(keyTypes)
  private var pendingKey: UnsafeRow = _
  private val pending = ArrayBuffer.empty[KeyValue]
  mf.inputsStay = true

  /** Takes one record with the sequence number it was given. */
  def write(row: InternalRow, kind: Byte, sequence: Long): Unit = {
    val key = keyOf(row)
    if (pendingKey == null || ordering.compare(key, pendingKey) != 0) {
      flush()
      pendingKey = key.copy()
    }
    pending += new KeyValue(pendingKey, sequence, kind, row.copy())
  }

  /** Writes the pending key's records, merged when there are several. */
  def flush(): Unit = {
    if (pending.size == 1) {
      val kv = pending.head
      out.write(kv.value, kv.valueKind, kv.sequenceNumber)
    } else if (pending.nonEmpty) {
      mf.reset()
      pending.foreach(mf.add)
      mf.resultKeepingDelete().foreach(kv => out.write(kv.value, kv.valueKind, kv.sequenceNumber))
    }
    pending.clear()
  }
}
