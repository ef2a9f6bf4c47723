package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

/** A scan whose column `i` is column `ordinals(i)` of `inner`'s: hands Spark columns that read the
 *  same data column twice (a data column and a metadata column that mirrors it) while the readers
 *  read each column once. */
final class ProjectedScan(inner: LaminaScan, output: StructType, ordinals: Array[Int])
  extends Scan with Batch with SupportsRuntimeV2Filtering {
  override def filterAttributes(): Array[NamedReference] = inner.filterAttributes()
  override def filter(predicates: Array[Predicate]): Unit = inner.filter(predicates)
  override def readSchema(): StructType = output
  override def description(): String = inner.description()
  override def toBatch: Batch = this
  override def planInputPartitions(): Array[InputPartition] = inner.planInputPartitions()
  override def createReaderFactory(): PartitionReaderFactory =
    new ProjectingReaderFactory(inner.createReaderFactory(), inner.readSchema(), ordinals)
  override def supportedCustomMetrics(): Array[CustomMetric] = inner.supportedCustomMetrics()
  override def reportDriverMetrics(): Array[CustomTaskMetric] = inner.reportDriverMetrics()
}

final class ProjectingReaderFactory(inner: PartitionReaderFactory, innerSchema: StructType, ordinals: Array[Int])
  extends PartitionReaderFactory {

  override def supportColumnarReads(partition: InputPartition): Boolean = inner.supportColumnarReads(partition)

  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val reader = inner.createReader(partition)
    val project = UnsafeProjection.create(ordinals.toSeq.map(i => BoundReference(i, innerSchema(i).dataType, nullable = true)))
    new PartitionReader[InternalRow] {
      override def next(): Boolean = reader.next()
      override def get(): InternalRow = project(reader.get())
      override def close(): Unit = reader.close()
      override def currentMetricsValues(): Array[CustomTaskMetric] = reader.currentMetricsValues()
    }
  }

  override def createColumnarReader(partition: InputPartition): PartitionReader[ColumnarBatch] = {
    val reader = inner.createColumnarReader(partition)
    new PartitionReader[ColumnarBatch] {
      override def next(): Boolean = reader.next()
      override def get(): ColumnarBatch = {
        val b = reader.get()
        new ColumnarBatch(ordinals.map(b.column), b.numRows())
      }
      override def close(): Unit = reader.close()
      override def currentMetricsValues(): Array[CustomTaskMetric] = reader.currentMetricsValues()
    }
  }
}
