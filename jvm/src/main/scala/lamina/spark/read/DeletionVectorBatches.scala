package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

import lamina.dv.{DeletionVector, DeletionVectorFilter}
import lamina.format.FileSchemaReader
import lamina.io.FileIO
import lamina.mergetree.KeyValueReaders

/** Reads the files of a table with deletion vectors as Spark's columnar batches (vectorized Parquet),
 *  each batch cut down to the rows the file's vector keeps, without copying ([[SelectedColumnVector]]).
 *  `withRowIndex`: `reader` returns the requested columns and then each row's position in its file
 *  (Spark's row index column), so that pushed filters may skip row groups and pages; without it the
 *  reader skips nothing and positions are counted, sparing the row index column's cost. */
final class DeletionVectorBatchReaderFactory(reader: FileSchemaReader, tableName: String, fileIO: FileIO,
    withRowIndex: Boolean)
  extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new IllegalStateException("deletion-vector batch reader factory asked for rows")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    val counters = new ScanCounters
    IteratorReader(split.files.iterator.flatMap { f =>
        counters.opened(f)
        val dv = DeletionVectorFilter(fileIO).vector(split.deletionFiles, f.fileName, f.rowCount).filterNot(_.isEmpty)
        val batches = new DeletionVectorBatches(dv.map(_.ascendingCursor()), withRowIndex)
        reader.openBatches(split.bucketPath, KeyValueReaders.refOf(f), tableName).map { b =>
          val kept = batches.masked(b)
          counters.deletedRows(b.numRows() - kept.numRows())
          kept
        }
      }, counters)
  }
}

/** The batches of one file, in file order, cut down to the rows that `deleted` keeps (none deleted
 *  when None). `withRowIndex`: each batch's last column holds its rows' positions, else they follow
 *  on from the previous batch's. */
final class DeletionVectorBatches(deleted: Option[DeletionVector.Cursor], withRowIndex: Boolean) {
  private var counted = 0L

  /** `batch` without its row index column and without the rows deleted. */
  def masked(batch: ColumnarBatch): ColumnarBatch = {
    val n = if (withRowIndex) batch.numCols() - 1 else batch.numCols()
    val positions = if (withRowIndex) batch.column(n) else null
    val first = counted
    val columns = Array.tabulate[ColumnVector](n)(batch.column)
    val rows = batch.numRows()
    counted += rows
    deleted match {
      case Some(cursor) =>
        val selected = new Array[Int](rows)
        var kept = 0
        var i = 0
        while (i < rows) {
          if (!cursor.isDeleted(if (positions == null) first + i else positions.getLong(i))) {
            selected(kept) = i
            kept += 1
          }
          i += 1
        }
        if (kept == rows) new ColumnarBatch(columns, rows)
        else new ColumnarBatch(columns.map(c => new SelectedColumnVector(c, selected, kept): ColumnVector), kept)
      case None => new ColumnarBatch(columns, rows)
    }
  }
}
