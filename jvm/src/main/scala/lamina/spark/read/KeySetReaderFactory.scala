package lamina.spark.read

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.CustomTaskMetric
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.types.DataType
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

import lamina.mergetree.{KeyValueReaders, LongKeys}
import lamina.spark.SumMetric
import lamina.spark.compact.SparkCompactTasks
import lamina.table.scan.KeySet

/** The key sets a scan received when the query ran ([[LaminaScan.filter]]), for its readers. Spark
 *  builds a scan's reader factory when it plans, before it hands the scan its runtime filters, and
 *  serializes the factory into the tasks after: the factory holds this and reads it in the tasks. */
final class RuntimeKeys extends Serializable {
  @volatile var value: Option[RuntimeKeys.Sets] = None
}

object RuntimeKeys {

  /** Column `ordinals(i)` of the rows read, of type `types(i)`, must hold a value of `sets(i)`; the sets
   *  reach each executor once, as a broadcast. `pageFiltered`: the merge's readers of the files, skipping
   *  the row groups and pages whose key range holds none of the single key's set ([[KeyPageFilter]]). */
  final case class Sets(ordinals: Array[Int], types: Array[DataType], sets: Broadcast[Array[KeySet]],
      pageFiltered: Option[KeyValueReaders] = None, lookupRowsPerKey: Int = 0,
      lookupBuilders: Option[KeyValueReaders] = None)
}

/** `inner`'s readers, handing on only the rows whose key columns hold values of the runtime key sets
 *  (the rows a join with their source can match), as rows or as batches cut down to those rows
 *  without copying ([[SelectedColumnVector]]); `inner`'s readers as they are while there are none. */
final case class KeySetReaderFactory(inner: PartitionReaderFactory, keys: RuntimeKeys) extends PartitionReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = inner.supportColumnarReads(partition)

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = keys.value match {
    case None => inner.createReader(partition)
    case Some(k) => new KeySetRows(narrowed(k).createReader(partition), k.ordinals, k.types, k.sets.value)
  }

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = keys.value match {
    case None => inner.createColumnarReader(partition)
    case Some(k) => new KeySetBatches(narrowed(k).createColumnarReader(partition), k.ordinals, k.types, k.sets.value)
  }

  /** `inner`, reading only the rows of the sets' keys itself where it can. */
  private def narrowed(k: RuntimeKeys.Sets): PartitionReaderFactory = inner match {
    case r: ReadsChosenKeys => r.forKeys(k)
    case other => other
  }
}

/** A reader factory of merged rows that can leave out, below its merge, the records of keys other
 *  than those of a runtime key set ([[lamina.mergetree.LongKeys]]): the merge then neither compares nor
 *  copies them. */
trait ReadsChosenKeys {

  /** This factory reading only the keys of `keys`' set on the table's key, or itself. */
  def forKeys(keys: RuntimeKeys.Sets): PartitionReaderFactory
}

object ReadsChosenKeys {

  /** `kv` reading only the keys of `k`'s set on the table's single integral key, if there is one, and
   *  those keys, counting the records they leave out for one reader: through `k.pageFiltered` (readers
   *  of the same files that skip pages by that set) where given, and looking runs up where
   *  `merge.key-lookup.rows-per-key` lets them ([[lamina.mergetree.KeyLookupRun]]). */
  def narrowed(kv: KeyValueReaders, k: RuntimeKeys.Sets): Option[(KeyValueReaders, LongKeys)] =
    kv.table.schema.trimmedPrimaryKeys match {
      case Seq(key) if kv.longKey.isDefined =>
        k.sets.value.find(_.column == key).flatMap(_.longKeys).map { all =>
          val chosen = all.counting()
          (k.pageFiltered.getOrElse(kv).onlyKeys(chosen)
              .withLookups(SparkCompactTasks.localLookupDir, k.lookupRowsPerKey, k.lookupBuilders), chosen)
        }
      case _ => None
    }
}

/** Counts the rows a key set reader dropped, beside its inner reader's metrics; `wanted` tells whether
 *  a row's key columns hold values of the sets. */
private abstract class KeySetReader[T](inner: PartitionReader[T], ordinals: Array[Int], types: Array[DataType],
    sets: Array[KeySet])
  extends PartitionReader[T] {
  protected var skipped = 0L

  protected def wanted(row: InternalRow): Boolean = {
    var i = 0
    while (i < ordinals.length) {
      if (row.isNullAt(ordinals(i)) || !sets(i).contains(row.get(ordinals(i), types(i)))) return false
      i += 1
    }
    true
  }

  override def close(): Unit = inner.close()

  /** The inner reader's metrics, its rows skipped by keys (below a merge) added to this reader's. */
  override def currentMetricsValues(): Array[CustomTaskMetric] = {
    val (below, others) = inner.currentMetricsValues().partition(_.name == ScanMetrics.RowsSkippedByKeys)
    others :+ SumMetric.value(ScanMetrics.RowsSkippedByKeys, skipped + below.map(_.value).sum)
  }
}

private final class KeySetRows(rows: PartitionReader[InternalRow], ordinals: Array[Int], types: Array[DataType],
    sets: Array[KeySet])
  extends KeySetReader(rows, ordinals, types, sets) {
  private var current: InternalRow = _

  override def next(): Boolean = {
    while (rows.next()) {
      val row = rows.get()
      if (wanted(row)) { current = row; return true }
      skipped += 1
    }
    false
  }

  override def get(): InternalRow = current
}

private final class KeySetBatches(batches: PartitionReader[ColumnarBatch], ordinals: Array[Int],
    types: Array[DataType], sets: Array[KeySet])
  extends KeySetReader(batches, ordinals, types, sets) {
  private var current: ColumnarBatch = _

  override def next(): Boolean = {
    while (batches.next()) {
      val batch = batches.get()
      val n = batch.numRows()
      val selected = new Array[Int](n)
      var kept = 0
      var r = 0
      while (r < n) {
        if (wanted(batch.getRow(r))) { selected(kept) = r; kept += 1 }
        r += 1
      }
      skipped += n - kept
      if (kept == n) { current = batch; return true }
      if (kept > 0) {
        val columns = (0 until batch.numCols()).map(c => new SelectedColumnVector(batch.column(c), selected, kept): ColumnVector)
        current = new ColumnarBatch(columns.toArray, kept)
        return true
      }
    }
    false
  }

  override def get(): ColumnarBatch = current
}
