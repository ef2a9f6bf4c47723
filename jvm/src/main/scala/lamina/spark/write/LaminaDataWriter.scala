package lamina.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriterFactory, DeltaWriter, DeltaWriterFactory, WriterCommitMessage}

import lamina.errors.BadInputException
import lamina.format.DataFileWriters
import lamina.table.FileStoreTable
import lamina.table.scan.SequenceBases
import lamina.table.sink.AppendTableWrite

class LaminaDataWriterFactory(table: FileStoreTable, writers: DataFileWriters,
    sequenceBases: Map[SequenceBases.Key, Long] = Map.empty, uniqueKeys: Boolean = false,
    rowKind: Option[Byte] = None, kindColumn: Option[Int] = None, metadataColumns: Seq[String] = Seq.empty)
  extends DataWriterFactory with DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] =
    if (table.isPrimaryKeyTable)
      new KeyValueDataWriter(table, writers, sequenceBases, partitionId, uniqueKeys, rowKind, kindColumn, metadataColumns)
    else new LaminaDataWriter(table, writers, partitionId)
}

/** Spark's data writer of one task of an append table, over the engine's [[AppendTableWrite]]. Files
 *  are committed by the driver; on abort they are deleted. */
class LaminaDataWriter(table: FileStoreTable, writers: DataFileWriters, taskId: Int) extends DeltaWriter[InternalRow] {
  override def insert(row: InternalRow): Unit = write(row)
  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    throw new BadInputException(s"Table ${table.name} has no primary key: rows cannot be updated in place")
  override def delete(metadata: InternalRow, id: InternalRow): Unit =
    throw new BadInputException(s"Table ${table.name} has no primary key: rows cannot be deleted in place")

  private val sink = new AppendTableWrite(table, writers, taskId)

  override def write(row: InternalRow): Unit = sink.write(row)

  override def commit(): WriterCommitMessage = LaminaWriterCommitMessage(sink.prepareCommit())

  override def abort(): Unit = sink.abort()

  override def close(): Unit = if (!sink.isEmpty) abort()
}
