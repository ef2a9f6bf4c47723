package lamina.spark.stream

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write.{DataWriter, PhysicalWriteInfo, WriterCommitMessage}
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}

import lamina.errors.CommitStateUnknownException
import lamina.spark.write.{LaminaDataWriterFactory, LaminaWriterCommitMessage}
import lamina.table.FileStoreTable
import lamina.table.commit.{CommitMessage, CommitReplay}
import lamina.table.sink.TableWriter

/** The sink of a streaming query (`df.writeStream.toTable`): each micro-batch appends one snapshot
 *  whose `commitIdentifier` is the batch id and whose `commitUser` is the query's id, which Spark keeps
 *  in the checkpoint, so it is the same after a restart. A batch that Spark replays after a restart
 *  (committed, but not yet recorded in the checkpoint) is recognised ([[CommitReplay]]) and its
 *  files are discarded: each batch lands exactly once. `afterCommit` runs the write's follow-up
 *  (compaction of the buckets it touched) once a snapshot landed, given the snapshot and batch ids. */
class LaminaStreamingWrite(table: FileStoreTable, commitUser: String, factory: () => LaminaDataWriterFactory,
    afterCommit: (Seq[CommitMessage], Long, Long) => Unit)
  extends StreamingWrite {

  override def createStreamingWriterFactory(info: PhysicalWriteInfo): StreamingDataWriterFactory =
    new LaminaStreamingWriterFactory(factory())

  override def useCommitCoordinator(): Boolean = false

  /** Set once the snapshot may reference the written files: abort must not delete them then. */
  @volatile private var filesMayBeReferenced = false

  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit = {
    val msgs = LaminaStreamingWrite.messagesOf(messages)
    if (CommitReplay.committed(table, commitUser, epochId)) {
      TableWriter.deleteFiles(table, msgs)
      return
    }
    val committed =
      try TableWriter.commitAppend(table, msgs, commitUser, identifier = epochId)
      catch { case e: CommitStateUnknownException => filesMayBeReferenced = true; throw e }
    filesMayBeReferenced = committed.isDefined
    committed.foreach(id => afterCommit(msgs, id, epochId))
  }

  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit =
    if (!filesMayBeReferenced) TableWriter.deleteFiles(table, LaminaStreamingWrite.messagesOf(messages))

  override def toString: String = s"LaminaStreamingWrite ${table.name}"
}

object LaminaStreamingWrite {
  def messagesOf(messages: Array[WriterCommitMessage]): Seq[CommitMessage] = messages.toSeq.flatMap {
    case m: LaminaWriterCommitMessage => m.messages
    case _ => Seq.empty
  }
}

/** The batch writers of one micro-batch: the epoch is the snapshot's identifier, not the files'. */
final class LaminaStreamingWriterFactory(batch: LaminaDataWriterFactory) extends StreamingDataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] =
    batch.createWriter(partitionId, taskId)
}
