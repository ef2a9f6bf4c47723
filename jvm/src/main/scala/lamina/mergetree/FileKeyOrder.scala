package lamina.mergetree

import org.apache.spark.sql.catalyst.InternalRow

import lamina.format.BinaryRowCodec
import lamina.table.KeyValueLayout
import lamina.table.manifest.DataFileMeta
import lamina.types.{DataType, SparkTypes}

/** The table's key order applied to data files' key ranges (their serialized min and max keys). */
final class FileKeyOrder(keyTypes: Seq[DataType]) {
  val ordering: Ordering[InternalRow] = KeyOrder.orderingOf(keyTypes.map(SparkTypes.toSpark))

  def minKey(f: DataFileMeta): InternalRow = BinaryRowCodec.deserialize(f.minKey, keyTypes)
  def maxKey(f: DataFileMeta): InternalRow = BinaryRowCodec.deserialize(f.maxKey, keyTypes)
}

object FileKeyOrder {
  def of(layout: KeyValueLayout): FileKeyOrder = new FileKeyOrder(layout.keyFields.map(_.dataType))
}
