package lamina.spark.stream

import java.nio.charset.StandardCharsets

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  CompositeReadLimit,
  MicroBatchStream,
  Offset,
  ReadLimit,
  ReadMaxFiles,
  ReadMaxRows,
  SupportsAdmissionControl,
  SupportsTriggerAvailableNow
}

import lamina.io.PathNames
import lamina.spark.SessionHadoopConf
import lamina.spark.read.LaminaInputPartition
import lamina.table.FileStoreTable
import lamina.table.consumer.{Consumer, ConsumerManager}
import lamina.table.options.CoreOptions
import lamina.table.scan.{ChangeSource, DataSplit, StreamLimit, StreamPosition, StreamScan}

/** A streaming read of a table (`spark.readStream.table`): where it starts is fixed when the query
 *  first runs and kept in its checkpoint (`<checkpoint>/sources/<n>/lamina-initial-offset`), so a
 *  restart before the first batch committed reads the same rows; each micro-batch then takes the
 *  units ([[StreamScan]]) from the previous offset on, as far as `read.stream.maxFilesPerTrigger` /
 *  `maxRowsPerTrigger` allow, up to the latest snapshot (or, under `Trigger.AvailableNow`, the latest
 *  when the query started). With a `consumer-id` each committed batch records its progress
 *  ([[ConsumerManager]]), where a new query of that consumer starts. `readers` builds the reader factory of a batch's splits: read whole
 *  (merged) or as changes. */
class LaminaMicroBatchStream(table: FileStoreTable, options: Map[String, String], checkpointLocation: String,
    readers: (Seq[DataSplit], Boolean) => PartitionReaderFactory)
  extends MicroBatchStream with SupportsAdmissionControl with SupportsTriggerAvailableNow {

  private val scan = new StreamScan(table, ChangeSource.of(table))
  @volatile private var availableNowBound: Option[Long] = None

  override def initialOffset(): Offset = {
    val conf = SessionHadoopConf(SparkSession.active)
    val file = PathNames.child(PathNames.of(checkpointLocation), "lamina-initial-offset")
    val fs = file.getFileSystem(conf)
    if (fs.exists(file)) {
      val in = fs.open(file)
      try LaminaSourceOffset.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8))
      finally in.close()
    } else {
      // a consumer's progress, unless told to ignore it, then scan.mode
      val progress = consumer.filterNot(_ => CoreOptions.ConsumerIgnoreProgress.getOrDefault(options))
        .flatMap(ConsumerManager.of(table).get)
      val offset = LaminaSourceOffset(progress.map(c => StreamPosition(c.nextSnapshot, 0, full = false))
          .getOrElse(scan.start(options)))
      fs.mkdirs(file.getParent)
      val out = fs.create(file, false)
      try out.write(offset.json().getBytes(StandardCharsets.UTF_8))
      finally out.close()
      offset
    }
  }

  override def deserializeOffset(json: String): Offset = LaminaSourceOffset.fromJson(json)

  override def getDefaultReadLimit: ReadLimit = {
    val files = CoreOptions.StreamMaxFilesPerTrigger.get(options).map(n => ReadLimit.maxFiles(n))
    val rows = CoreOptions.StreamMaxRowsPerTrigger.get(options).map(n => ReadLimit.maxRows(n))
    (files ++ rows).toArray match {
      case Array() => ReadLimit.allAvailable()
      case Array(one) => one
      case both => ReadLimit.compositeLimit(both)
    }
  }

  override def latestOffset(): Offset =
    throw new UnsupportedOperationException("latestOffset(startOffset, readLimit) is the one to call")

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val from = position(start)
    record(from)
    val last = availableNowBound.orElse(table.snapshotManager.latestId()).getOrElse(0L)
    LaminaSourceOffset(scan.advance(from, LaminaMicroBatchStream.limitOf(limit), last))
  }

  override def prepareForTriggerAvailableNow(): Unit =
    availableNowBound = Some(table.snapshotManager.latestId().getOrElse(0L))

  /** The splits the last planned batch reads, for its reader factory. */
  @volatile private var planned: Seq[(DataSplit, Boolean)] = Seq.empty

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    planned = scan.between(position(start), position(end))
    LaminaMicroBatchStream.partitionsOf(planned, table.isPrimaryKeyTable).toArray
  }

  override def createReaderFactory(): PartitionReaderFactory = {
    val (whole, changes) = planned.partition(_._2)
    new StreamReaderFactory(readers(whole.map(_._1), false), readers(changes.map(_._1), true))
  }

  private def position(o: Offset): StreamPosition = o match {
    case l: LaminaSourceOffset => l.position
    case other => LaminaSourceOffset.fromJson(other.json()).position
  }

  private val consumer: Option[String] = CoreOptions.ConsumerId.get(options)
  @volatile private var recorded: Option[Long] = None

  /** With a `consumer-id`, records the first snapshot the stream has not read completely, once the
   *  batches before `done` are committed: Spark plans a batch from the end of the last committed one
   *  (so `latestOffset`'s start is done) and commits sources one batch late, which would leave the last
   *  batch of a `Trigger.AvailableNow` run unrecorded. */
  private def record(done: StreamPosition): Unit = consumer.foreach { id =>
    if (!recorded.contains(done.snapshotId)) {
      ConsumerManager.of(table).reset(id, Consumer(done.snapshotId))
      recorded = Some(done.snapshotId)
    }
  }

  override def commit(end: Offset): Unit = record(position(end))

  override def stop(): Unit = ()

  override def toString: String = s"LaminaMicroBatchStream ${table.name}"
}

object LaminaMicroBatchStream {

  def limitOf(limit: ReadLimit): StreamLimit = limit match {
    case f: ReadMaxFiles => StreamLimit(Some(f.maxFiles()), None)
    case r: ReadMaxRows => StreamLimit(None, Some(r.maxRows()))
    case c: CompositeReadLimit =>
      c.getReadLimits.map(limitOf).foldLeft(StreamLimit.None)((a, b) =>
        StreamLimit(a.maxFiles.orElse(b.maxFiles), a.maxRows.orElse(b.maxRows)))
    case _ => StreamLimit.None
  }

  /** One input partition per unit, except that a primary-key table's changes of one (partition,
   *  bucket) go to one partition, in snapshot order, so that the changes of a key keep their order. */
  def partitionsOf(units: Seq[(DataSplit, Boolean)], primaryKey: Boolean): Seq[InputPartition] = {
    val (whole, changes) = units.partition(_._2)
    val wholeParts = whole.map(u => StreamInputPartition(Seq(u._1), full = true))
    val changeParts =
      if (!primaryKey) changes.map(u => StreamInputPartition(Seq(u._1), full = false))
      else {
        val byBucket = changes.map(_._1).groupBy(s => (java.nio.ByteBuffer.wrap(s.partition), s.bucket))
        byBucket.values.toSeq.sortBy(_.head.bucketPath).map(ss => StreamInputPartition(ss, full = false))
      }
    wholeParts ++ changeParts
  }
}

/** The splits one task of a micro-batch reads, one after the other; read whole or as changes. */
final case class StreamInputPartition(splits: Seq[DataSplit], full: Boolean) extends InputPartition

/** Reads a micro-batch's partitions with the factory of their kind, split after split. */
final class StreamReaderFactory(whole: PartitionReaderFactory, changes: PartitionReaderFactory) extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] = {
    val p = partition.asInstanceOf[StreamInputPartition]
    val factory = if (p.full) whole else changes
    val readers = p.splits.iterator.map(s => factory.createReader(LaminaInputPartition(s)))
    new PartitionReader[InternalRow] {
      private var cur: PartitionReader[InternalRow] = if (readers.hasNext) readers.next() else null
      override def next(): Boolean = {
        while (cur != null && !cur.next()) {
          cur.close()
          cur = if (readers.hasNext) readers.next() else null
        }
        cur != null
      }
      override def get(): InternalRow = cur.get()
      override def close(): Unit = if (cur != null) cur.close()
    }
  }
}
