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
    sequenceBases: Map[(scala.collection.immutable.ArraySeq[Byte], Int), Long] = Map.empty) extends DataWriterFactory
  with org.apache.spark.sql.connector.write.DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): org.apache.spark.sql.connector.write.DeltaWriter[InternalRow] =
    if (table.isPrimaryKeyTable) new KeyValueDataWriter(table, writers, sequenceBases, partitionId)
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
  private val partitionTypes = schema.partitionTypes
  private val partitionOrdinals = schema.partitionKeys.map(schema.indexOf).toArray
  private val numBuckets = schema.numBuckets
  private val bucketOrdinals = schema.bucketKeys.map(schema.indexOf).toArray
  private val bucketTypes = schema.bucketKeys.map(k => schema.field(k).get.dataType)
  private val partitionProjection: Option[UnsafeProjection] =
    if (partitionOrdinals.isEmpty) None
    else Some(UnsafeProjection.create(partitionOrdinals.toSeq.map { i =>
      BoundReference(i, SparkTypes.toSpark(schema.fields(i).dataType), nullable = true)
    }))
  private val targetFileSize = CoreOptions.TargetFileSize.getOrDefault(table.options)
  private val open = mutable.LinkedHashMap.empty[(UnsafeRow, Int), RollingFileWriter]
  private val emptyPartition = new UnsafeRow(0)
  private val nonNullOrdinals = schema.fields.indices.filter(i => !schema.fields(i).dataType.nullable)

  private val charRules = new CharVarcharRules(schema, table.name)

  override def write(input: InternalRow): Unit = {
    val row = if (charRules.isEmpty) input else charRules(input)
    nonNullOrdinals.foreach { i =>
      if (row.isNullAt(i))
        throw new lamina.errors.BadInputException(
          s"Column '${schema.fields(i).name}' of table ${table.name} is NOT NULL but a row has null there")
    }
    val partition = partitionProjection.map(_.apply(row)).getOrElse(emptyPartition)
    val bucket = if (numBuckets > 0) Bucket.bucketOf(row, bucketOrdinals, bucketTypes, numBuckets) else 0
    val w = open.get((partition, bucket)) match {
      case Some(w) => w
      case None =>
        val key = partition.copy()
        val bytes = BinaryRowCodec.serialize(key, partitionTypes)
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
