package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.scalatest.funsuite.AnyFunSuite

class ProjectedScanTest extends AnyFunSuite {

  private val innerSchema = StructType(Seq(StructField("id", LongType), StructField("ts", LongType)))
  private object Partition extends InputPartition

  /** Two rows (1, 10) and (2, null), as rows or as one batch. */
  private object Inner extends PartitionReaderFactory {
    override def supportColumnarReads(p: InputPartition): Boolean = true
    override def createReader(p: InputPartition): PartitionReader[InternalRow] = new PartitionReader[InternalRow] {
      private val rows = Iterator(new GenericInternalRow(Array[Any](1L, 10L)), new GenericInternalRow(Array[Any](2L, null)))
      private var cur: InternalRow = _
      override def next(): Boolean = rows.hasNext && { cur = rows.next(); true }
      override def get(): InternalRow = cur
      override def close(): Unit = ()
    }
    override def createColumnarReader(p: InputPartition): PartitionReader[ColumnarBatch] = new PartitionReader[ColumnarBatch] {
      private var done = false
      override def next(): Boolean = !done && { done = true; true }
      override def get(): ColumnarBatch = {
        val id = new OnHeapColumnVector(2, LongType); id.putLong(0, 1L); id.putLong(1, 2L)
        val ts = new OnHeapColumnVector(2, LongType); ts.putLong(0, 10L); ts.putNull(1)
        new ColumnarBatch(Array[ColumnVector](id, ts), 2)
      }
      override def close(): Unit = ()
    }
  }

  // output (ts, id, ts): the second ts is a metadata column mirroring the data column
  private val factory = new ProjectingReaderFactory(Inner, innerSchema, Array(1, 0, 1))

  test("rows are projected to the output columns, a column read once appearing twice") {
    val r = factory.createReader(Partition)
    val out = Iterator.continually(r).takeWhile(_.next()).map { x =>
      val row = x.get();
      (if (row.isNullAt(0)) None else Some(row.getLong(0)), row.getLong(1),
        if (row.isNullAt(2)) None else Some(row.getLong(2)))
    }.toList
    assert(out == List((Some(10L), 1L, Some(10L)), (None, 2L, None)))
  }

  test("batches hand the same column vectors in the output order") {
    assert(factory.supportColumnarReads(Partition))
    val r = factory.createColumnarReader(Partition)
    assert(r.next())
    val b = r.get()
    assert(b.numCols() == 3 && b.numRows() == 2)
    assert(b.column(0) eq b.column(2))
    assert(b.column(1).getLong(1) == 2L && b.column(2).isNullAt(1) && b.column(0).getLong(0) == 10L)
    assert(!r.next())
  }
}
