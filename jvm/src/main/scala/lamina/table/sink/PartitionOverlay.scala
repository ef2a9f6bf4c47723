package lamina.table.sink

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow

import lamina.format.BinaryRowCodec
import lamina.table.schema.TableSchema
import lamina.types.SparkTypes

/** A row of the table with its partition columns set to the values of another (serialized) partition:
 *  the record a cross-partition upsert writes into a key's old partition. Decoded partitions are kept
 *  per instance. Not thread-safe. */
final class PartitionOverlay(schema: TableSchema) {
  private val types = schema.fields.map(f => SparkTypes.toSpark(f.dataType)).toArray
  private val partitionOrdinals = schema.partitionKeys.map(schema.indexOf).toArray
  private val partitionTypes = partitionOrdinals.map(types(_))
  private val decoded = mutable.HashMap.empty[Seq[Byte], InternalRow]

  def apply(row: InternalRow, partition: Array[Byte]): InternalRow = {
    val values = decoded.getOrElseUpdate(partition.toSeq, BinaryRowCodec.deserialize(partition, schema.partitionTypes))
    val out = new GenericInternalRow(types.length)
    var i = 0
    while (i < types.length) { out.update(i, if (row.isNullAt(i)) null else row.get(i, types(i))); i += 1 }
    var p = 0
    while (p < partitionOrdinals.length) {
      out.update(partitionOrdinals(p), if (values.isNullAt(p)) null else values.get(p, partitionTypes(p)))
      p += 1
    }
    out
  }
}
