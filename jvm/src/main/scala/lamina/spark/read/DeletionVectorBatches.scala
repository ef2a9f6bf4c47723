package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

import lamina.dv.{DeletionVector, DeletionVectorFilter}
import lamina.format.FileSchemaReader
import lamina.io.FileIO
import lamina.mergetree.KeyValueReaders

/** Reads the files of a table with deletion vectors as Spark's columnar batches (vectorized Parquet),
 *  with every pushed filter skipping row groups: the reader appends the position of each row in its
 *  file (Spark's row index column), and each batch is cut down to the rows the file's vector keeps,
 *  without copying ([[SelectedColumnVector]]). `reader` returns the requested columns and then the
 *  row index. */
final class DeletionVectorBatchReaderFactory(reader: FileSchemaReader, tableName: String, fileIO: FileIO)
  extends PartitionReaderFactory {
  override def supportColumnarReads(partition: InputPartition): Boolean = true

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    throw new IllegalStateException("deletion-vector batch reader factory asked for rows")

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val split = partition.asInstanceOf[LaminaInputPartition].split
    IteratorReader(split.files.iterator.flatMap { f =>
      val dv = DeletionVectorFilter(fileIO).vector(split.deletionFiles, f.fileName, f.rowCount)
      reader.openBatches(split.bucketPath, KeyValueReaders.refOf(f), tableName).map(DeletionVectorBatches.masked(_, dv))
    })
  }
}

object DeletionVectorBatches {

  /** `batch` without its last column (the rows' positions in their file) and without the rows `dv` deletes. */
  def masked(batch: ColumnarBatch, dv: Option[DeletionVector]): ColumnarBatch = {
    val n = batch.numCols() - 1
    val positions = batch.column(n)
    val columns = Array.tabulate[ColumnVector](n)(batch.column)
    val rows = batch.numRows()
    // a batch of consecutive positions (no page skipped inside it) that its vector leaves alone: as is
    def untouched(v: DeletionVector) = rows == 0 || {
      val first = positions.getLong(0)
      val last = positions.getLong(rows - 1)
      last - first == rows - 1 && v.deletedBetween(first, last + 1) == 0
    }
    dv match {
      case Some(v) if !v.isEmpty && !untouched(v) =>
        val selected = new Array[Int](rows)
        var kept = 0
        var i = 0
        while (i < rows) {
          if (!v.isDeleted(positions.getLong(i))) { selected(kept) = i; kept += 1 }
          i += 1
        }
        if (kept == rows) new ColumnarBatch(columns, rows)
        else new ColumnarBatch(columns.map(c => new SelectedColumnVector(c, selected, kept): ColumnVector), kept)
      case _ => new ColumnarBatch(columns, rows)
    }
  }
}
