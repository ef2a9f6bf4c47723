package lamina.table.sink

import scala.collection.immutable.ArraySeq
import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import lamina.format.{BinaryRowCodec, DataFileWriters}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.options.CoreOptions

/** The writes of one task to an append table: each row goes to the [[RollingFileWriter]] of its
 *  (partition, bucket). Invariant: every file written is either in the commit messages of
 *  [[prepareCommit]] or removed by [[abort]]. `buckets`: the bucket counts of partitions ([[WriteBuckets]]). */
final class AppendTableWrite(table: FileStoreTable, writers: DataFileWriters, taskId: Int,
    buckets: WriteBuckets = WriteBuckets()) {
  private val schema = table.schema
  private val routing = new RowRouting(table, buckets)
  private val targetFileSize = CoreOptions.TargetFileSize.getOrDefault(table.options)
  private val open = mutable.LinkedHashMap.empty[(UnsafeRow, Int), RollingFileWriter]
  private val counts = mutable.HashMap.empty[RollingFileWriter, Int]

  def write(input: InternalRow): Unit = {
    val row = routing.checked(input)
    val partition = routing.partition(row)
    val bucket = routing.bucket(row, partition)
    val w = open.get((partition, bucket)) match {
      case Some(w) => w
      case None =>
        val key = partition.copy()
        val bytes = BinaryRowCodec.serialize(key, schema.partitionTypes)
        val w = new RollingFileWriter(table, writers, bytes, table.paths.newFilesDir(key, bucket), bucket, targetFileSize, taskId)
        open.put((key, bucket), w)
        counts.put(w, routing.bucketsOf(partition))
        w
    }
    w.write(row)
  }

  /** Closes every file and returns one message per (partition, bucket) that has files. */
  def prepareCommit(): Seq[CommitMessage] = {
    val msgs = open.values.toSeq.map(w => CommitMessage(w.partition, w.bucket, counts(w), w.finish()))
      .filter(_.newFiles.nonEmpty)
    open.clear()
    counts.clear()
    msgs
  }

  /** Removes every file written. */
  def abort(): Unit = { open.values.foreach(_.abort()); open.clear(); counts.clear() }

  def isEmpty: Boolean = open.isEmpty
}
