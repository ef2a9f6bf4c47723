package lamina.table.sink

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import lamina.format.{BinaryRowCodec, DataFileWriters}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.options.CoreOptions

/** The writes of one task to an append table: each row goes to the [[RollingFileWriter]] of its
 *  (partition, bucket). Invariant: every file written is either in the commit messages of
 *  [[prepareCommit]] or removed by [[abort]]. */
final class AppendTableWrite(table: FileStoreTable, writers: DataFileWriters, taskId: Int) {
  private val schema = table.schema
  private val routing = new RowRouting(table)
  private val numBuckets = routing.numBuckets
  private val targetFileSize = CoreOptions.TargetFileSize.getOrDefault(table.options)
  private val open = mutable.LinkedHashMap.empty[(UnsafeRow, Int), RollingFileWriter]

  def write(input: InternalRow): Unit = {
    val row = routing.checked(input)
    val partition = routing.partition(row)
    val bucket = routing.bucket(row)
    val w = open.get((partition, bucket)) match {
      case Some(w) => w
      case None =>
        val key = partition.copy()
        val bytes = BinaryRowCodec.serialize(key, schema.partitionTypes)
        val w = new RollingFileWriter(table, writers, bytes, table.paths.bucketDir(key, bucket), bucket, targetFileSize, taskId)
        open.put((key, bucket), w)
        w
    }
    w.write(row)
  }

  /** Closes every file and returns one message per (partition, bucket) that has files. */
  def prepareCommit(): Seq[CommitMessage] = {
    val msgs = open.values.toSeq.map(w => CommitMessage(w.partition, w.bucket, numBuckets, w.finish()))
      .filter(_.newFiles.nonEmpty)
    open.clear()
    msgs
  }

  /** Removes every file written. */
  def abort(): Unit = { open.values.foreach(_.abort()); open.clear() }

  def isEmpty: Boolean = open.isEmpty
}
