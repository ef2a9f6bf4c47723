package lamina.spark.write

import scala.collection.immutable.ArraySeq

import org.apache.spark.sql.catalyst.{InternalRow, ProjectingInternalRow}
import org.apache.spark.sql.connector.write.{DataWriterFactory, DeltaWriter, DeltaWriterFactory, WriterCommitMessage}
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.BadInputException
import lamina.format.DataFileWriters
import lamina.table.FileStoreTable
import lamina.table.bucket.{CrossPartitionPlan, DynamicBucketPlan}
import lamina.table.commit.DeletedPositions
import lamina.table.scan.SequenceBases
import lamina.table.sink.{AppendTableWrite, WriteBuckets}
import lamina.types.SparkTypes

class LaminaDataWriterFactory(table: FileStoreTable, writers: DataFileWriters,
    sequenceBases: Map[SequenceBases.Key, Long] = Map.empty, uniqueKeys: Boolean = false,
    rowKind: Option[Byte] = None, kindColumn: Option[Int] = None, metadataColumns: Seq[String] = Seq.empty,
    replaceData: Boolean = false, marksDeleted: Boolean = false, dynamic: Option[DynamicBucketPlan] = None,
    buckets: WriteBuckets = WriteBuckets(), crossPartition: Option[CrossPartitionPlan] = None)
  extends DataWriterFactory with DeltaWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DeltaWriter[InternalRow] =
    if (table.isPrimaryKeyTable)
      new KeyValueDataWriter(table, writers, sequenceBases, partitionId, uniqueKeys, rowKind, kindColumn, metadataColumns,
        dynamic, buckets, crossPartition)
    else new LaminaDataWriter(table, writers, partitionId, replaceData, marksDeleted, buckets)
}

/** Spark's data writer of one task of an append table, over the engine's [[AppendTableWrite]]. Files
 *  are committed by the driver; on abort they are deleted.
 *
 *  `replaceData`: the rows of a copy-on-write DELETE, UPDATE or MERGE. Spark 4.0 hands such a writer,
 *  when the operation asks for no metadata columns, the whole row of its query, an operation code
 *  (`__row_operation`) before the table's columns (later Spark versions project it away): a row wider
 *  than the table is written without its leading columns. */
class LaminaDataWriter(table: FileStoreTable, writers: DataFileWriters, taskId: Int, replaceData: Boolean = false,
    marksDeleted: Boolean = false, buckets: WriteBuckets = WriteBuckets())
  extends DeltaWriter[InternalRow] {
  override def insert(row: InternalRow): Unit = write(row)

  /** Rows written count as inserted; an update counts once, as updated. */
  private val tally = new RowTally

  /** `marksDeleted`: the rows a DELETE, UPDATE or MERGE of a table with deletion vectors deletes, by
   *  their id, the file name and position ([[lamina.spark.RowPositionColumns]]). */
  private val deleted = new DeletedPositions

  private var lastFile: UTF8String = _
  private var lastName: String = _

  override def update(metadata: InternalRow, id: InternalRow, row: InternalRow): Unit =
    if (!marksDeleted)
      throw new BadInputException(s"Table ${table.name} has no primary key: rows cannot be updated in place")
    else {
      markDeleted(id)
      sink.write(row)
      tally.updated += 1
    }

  override def delete(metadata: InternalRow, id: InternalRow): Unit =
    if (!marksDeleted)
      throw new BadInputException(s"Table ${table.name} has no primary key: rows cannot be deleted in place")
    else {
      markDeleted(id)
      tally.deleted += 1
    }

  private def markDeleted(id: InternalRow): Unit = {
    val file = id.getUTF8String(0)
    if (file != lastFile) { lastFile = file.copy(); lastName = file.toString }
    deleted.add(lastName, id.getLong(1))
  }

  private val sink = new AppendTableWrite(table, writers, taskId, buckets)

  private val columns = SparkTypes.toSparkStruct(table.schema.fields)

  /** The view of a wider row's trailing (table) columns, made at the first such row. */
  private var tableColumns: ProjectingInternalRow = _

  override def write(row: InternalRow): Unit =
    if (replaceData && row.numFields > columns.size) {
      if (tableColumns == null) {
        val skip = row.numFields - columns.size
        tableColumns = ProjectingInternalRow(columns, Vector.tabulate(columns.size)(_ + skip))
      }
      tableColumns.project(row)
      sink.write(tableColumns)
      tally.inserted += 1
    } else { sink.write(row); tally.inserted += 1 }

  override def commit(): WriterCommitMessage =
    LaminaWriterCommitMessage(sink.prepareCommit(), if (deleted.isEmpty) None else Some(deleted), tally.result)

  override def abort(): Unit = sink.abort()

  override def close(): Unit = if (!sink.isEmpty) abort()
}
