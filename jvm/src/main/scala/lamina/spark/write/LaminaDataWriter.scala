package lamina.spark.write

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.connector.write.{DataWriter, DataWriterFactory, WriterCommitMessage}

import lamina.format.{BinaryRowCodec, Bucket}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitMessage
import lamina.table.options.CoreOptions
import lamina.types.SparkTypes

class LaminaDataWriterFactory(table: FileStoreTable, writers: DataFileWriters,
    sequenceBases: Map[lamina.table.scan.SequenceBases.Key, Long] = Map.empty, uniqueKeys: Boolean = false,
    rowKind: Option[Byte] = None, kindColumn: Option[Int] = None, metadataColumns: Seq[String] = Seq.empty)
  extends DataWriterFactory
  with org.apache.spark.sql.connector.write.DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): org.apache.spark.sql.connector.write.DeltaWriter[InternalRow] =
    if (table.isPrimaryKeyTable) new KeyValueDataWriter(table, writers, sequenceBases, partitionId, uniqueKeys, rowKind, kindColumn, metadataColumns)
    else new LaminaDataWriter(table, writers, partitionId)
}

/** Writes the rows of one Spark task of an append table: each row goes to the rolling file writer
 *  of its (partition, bucket). Files are committed by the driver; on abort they are deleted. */
class LaminaDataWriter(table: FileStoreTable, writers: DataFileWriters, taskId: Int)
  extends org.apache.spark.sql.connector.write.DeltaWriter[InternalRow] {
  override def insert(row: InternalRow): Unit = write(row)
  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    throw new lamina.errors.BadInputException(s"Table ${table.name} has no primary key: rows cannot be updated in place")
  override def delete(metadata: InternalRow, id: InternalRow): Unit =
    throw new lamina.errors.BadInputException(s"Table ${table.name} has no primary key: rows cannot be deleted in place")

  private val schema = table.schema
  private val routing = new RowRouting(table)
  private val numBuckets = routing.numBuckets
  private val targetFileSize = CoreOptions.TargetFileSize.getOrDefault(table.options)
  private val open = mutable.LinkedHashMap.empty[(UnsafeRow, Int), RollingFileWriter]

  override def write(input: InternalRow): Unit = {
    val row = routing.checked(input)
    val partition = routing.partition(row)
    val bucket = routing.bucket(row)
    val w = open.get((partition, bucket)) match {
      case Some(w) => w
      case None =>
        val key = partition.copy()
        val bytes = BinaryRowCodec.serialize(key, schema.partitionTypes)
        val dir = table.paths.bucketDir(key, bucket)
        val w = new RollingFileWriter(table, writers, bytes, dir, bucket, targetFileSize, taskId)
        open.put((key, bucket), w)
        w
    }
    w.write(row)
  }

  override def commit(): WriterCommitMessage = {
    val msgs = open.values.toSeq.map { w =>
      CommitMessage(w.partition, w.bucket, numBuckets, w.finish())
    }.filter(_.newFiles.nonEmpty)
    open.clear()
    LaminaWriterCommitMessage(msgs)
  }

  override def abort(): Unit = {
    open.values.foreach(_.abort())
    open.clear()
  }

  override def close(): Unit = if (open.nonEmpty) abort()
}
