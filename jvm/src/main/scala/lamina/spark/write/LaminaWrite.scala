package lamina.spark.write

import java.io.IOException

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.distributions.{Distribution, Distributions}
import org.apache.spark.sql.connector.expressions.{Expression => ConnectorExpression, Expressions, SortDirection, SortOrder}
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.connector.write.RowLevelOperation.Command
import org.apache.spark.sql.connector.write.streaming.StreamingWrite

import lamina.errors.{BadInputException, CommitStateUnknownException}
import lamina.mergetree.RowKind
import lamina.table.compact.CompactAfterWrite
import lamina.table.options.CoreOptions
import lamina.spark.{BucketTagFunction, BucketTransformFunction, ColumnReferences, DataFileFormats, MergeShapes, OptionScopes}
import lamina.spark.compact.SparkCompactTasks
import lamina.spark.read.KeyValueReaderBuilder
import lamina.spark.stream.LaminaStreamingWrite
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.bucket.{CrossPartitionPlan, DynamicBucketPlan, KeyIndexShares}
import lamina.table.commit.{CommitMessage, CommitOperation, DeletedPositions, FileStoreCommit, RowCounts}
import lamina.table.scan.{BucketCounts, FileStoreScan, SequenceBases}
import lamina.table.sink.{TableWriter, WriteBuckets}
import lamina.types.SparkTypes

/** The batch write of one query: executors write data files, the driver commits them in one
 *  snapshot (APPEND, or OVERWRITE for INSERT OVERWRITE, TRUNCATE and copy-on-write DML). The write options of the
 *  query and the session's `spark.lamina.*` conf apply on top of the table's options
 *  ([[lamina.spark.OptionScopes]]). */
class LaminaWrite(stored: FileStoreTable, info: LogicalWriteInfo, mode: WriteMode, refusal: Option[String] = None,
    command: Option[Command] = None)
  extends Write with BatchWrite with RequiresDistributionAndOrdering with DeltaWrite with DeltaBatchWrite {
  private val table: FileStoreTable = {
    import scala.jdk.CollectionConverters._
    stored.withDynamicOptions(OptionScopes.dynamic(stored.name,
        info.options().asCaseSensitiveMap().asScala.toMap, "write"))
  }
  private val commitUser = FileStoreCommit.newUser()

  /** What `$snapshots.operation` shows: the row-level command, a MERGE planned as a write, else the mode's. */
  private def operation(default: CommitOperation): CommitOperation = command match {
    case Some(Command.DELETE) => CommitOperation.Delete
    case Some(Command.UPDATE) => CommitOperation.Update
    case Some(Command.MERGE) => CommitOperation.Merge
    case _ =>
      val merge = Seq(MergeShapes.UniqueKeysOption, MergeShapes.RowKindOption, MergeShapes.RowKindColumnOption)
      if (merge.exists(info.options().containsKey)) CommitOperation.Merge else default
  }

  override def description(): String = s"LaminaWrite ${table.name} $mode"

  override def toBatch: DeltaBatchWrite = {
    refusal.orElse(crossPartitionRefusal).foreach(why => throw new BadInputException(why))
    this
  }

  /** A cross-partition upsert table takes appends, row-level DML and overwrites of the whole table; an
   *  overwrite of some partitions would keep the index entries of keys it drops elsewhere. */
  private def crossPartitionRefusal: Option[String] = {
    val partial = mode match {
      case WriteMode.OverwriteDynamic => true
      case WriteMode.OverwriteByFilter(filters) => filters.nonEmpty
      case _ => false
    }
    if (table.hasCrossPartitionUpsert && partial)
      Some(s"INSERT OVERWRITE of some partitions of table ${table.name} is not supported: its primary key leaves " +
        s"out partition column(s) ${table.schema.partitionKeys.filterNot(table.schema.primaryKeys.contains).mkString(", ")} " +
        "with 'bucket' = '-1' (cross-partition upsert), so a key's row may be in any partition; overwrite the " +
        "whole table, or DELETE the partitions' rows and INSERT")
    else None
  }

  /** A streaming query's sink appends; its commit user is the query's id, kept in its checkpoint. */
  override def toStreaming: StreamingWrite = {
    refusal.foreach(why => throw new BadInputException(why))
    if (table.hasCrossPartitionUpsert)
      throw new BadInputException(s"Streaming write into table ${table.name} is not supported: its primary key leaves " +
        "out a partition column with 'bucket' = '-1' (cross-partition upsert), which Lamina writes in batch " +
        "statements only")
    if (mode != WriteMode.Append)
      throw new BadInputException(s"Streaming write into table ${table.name}: output mode complete is not supported " +
        "(each micro-batch would replace the whole table); use output mode append")
    new LaminaStreamingWrite(table, info.queryId(), () => createBatchWriterFactory(null),
      (msgs, id, batch) => compactAfter(msgs, s"${info.queryId()}-compact", id, Some(batch)))
  }

  /** Runs the compactions after this write's commits, counting their lookups ([[WriteMetrics]]). */
  private lazy val compactTasks = new SparkCompactTasks(None)

  private def compactAfter(msgs: Seq[CommitMessage], user: String, id: Long, batchId: Option[Long]): Unit =
    if (table.isPrimaryKeyTable || addsRows) CompactAfterWrite.afterCommit(table, msgs, user, id, compactTasks, batchId)

  /** Whether this write only adds or replaces rows: after one, an append table's buckets compact, as with
   *  Paimon's writers; row-level DML on an append table does not compact. */
  private def addsRows: Boolean = mode match {
    case WriteMode.Append | WriteMode.OverwriteDynamic | _: WriteMode.OverwriteByFilter => true
    case _: WriteMode.CopyOnWrite | _: WriteMode.MarkDeleted => false
  }

  override def createBatchWriterFactory(physical: PhysicalWriteInfo): LaminaDataWriterFactory =
    new LaminaDataWriterFactory(table, DataFileFormats.writers(SparkSession.active, table),
      if (table.isPrimaryKeyTable) SequenceBases.of(table) else Map.empty,
      uniqueKeys = table.isPrimaryKeyTable && info.options().getBoolean(MergeShapes.UniqueKeysOption, false),
      rowKind = Option(info.options().get(MergeShapes.RowKindOption)).filter(_ => table.isPrimaryKeyTable)
        .map(RowKind.fromShortString),
      kindColumn = Option(info.options().get(MergeShapes.RowKindColumnOption)).filter(_ => table.isPrimaryKeyTable)
        .map(c => info.schema().fieldIndex(c)),
      metadataColumns = if (info.metadataSchema().isPresent) info.metadataSchema().get.fieldNames.toSeq else Seq.empty,
      replaceData = mode.isInstanceOf[WriteMode.CopyOnWrite], marksDeleted = mode.isInstanceOf[WriteMode.MarkDeleted],
      dynamic = if (!table.hasDynamicBuckets || table.hasCrossPartitionUpsert) None else Some(dynamicPlan),
      crossPartition = crossPartitionPlan,
      buckets =
        if (writesPostponeFiles) WriteBuckets(Map.empty, Some(FileStorePaths.PostponeBucket))
        else WriteBuckets(if (overwrites) Map.empty else BucketCounts.differing(table),
          Some(postponeBuckets).filter(_ => table.hasPostponeBuckets)))

  /** A postpone-bucket table with `postpone.batch-write-fixed-bucket` = false: rows go into each
   *  partition's bucket-postpone, unread until a compaction assigns them to buckets. */
  private def writesPostponeFiles: Boolean =
    table.hasPostponeBuckets && !CoreOptions.PostponeBatchWriteFixedBucket.getOrDefault(table.options)

  /** A postpone-bucket table's count for partitions written first: Spark's default parallelism (as
   *  Paimon's batch writes take their input's parallelism), at most
   *  `postpone.batch-write-fixed-bucket.max-parallelism`. */
  private def postponeBuckets: Int = math.min(SparkSession.active.sparkContext.defaultParallelism,
    CoreOptions.PostponeBatchWriteFixedBucketMaxParallelism.getOrDefault(table.options))

  /** Whether this write replaces whole partitions, which it writes in the table's bucket count. */
  private def overwrites: Boolean = mode match {
    case WriteMode.OverwriteDynamic | _: WriteMode.OverwriteByFilter => true
    case _ => false
  }

  /** A dynamic-bucket table's assignment: from the latest snapshot's hash index, or afresh for an
   *  overwrite, whose partitions lose their files and index. */
  private def dynamicPlan: DynamicBucketPlan = {
    val from = if (overwrites) None else table.snapshotManager.latestId()
    DynamicBucketPlan(from, dynamicGroups)
  }

  /** A cross-partition upsert table's placement: the key index built from the latest snapshot's live
   *  keys (those `cross-partition-upsert.index-ttl` keeps), or from nothing for a whole-table overwrite,
   *  each task's share read and shuffled to it by the bootstrap scan ([[CrossPartitionBootstrap]]).
   *  Fixed once per write: its commit checks that no other write landed since ([[KeyIndexConflict]]). */
  private lazy val crossPartitionPlan: Option[CrossPartitionPlan] =
    if (!table.hasCrossPartitionUpsert) None
    else {
      val base = if (overwrites) None else table.snapshotManager.latestId()
      val live = base.map(id => new FileStoreScan(table, table.snapshotManager.snapshot(id)).plan()).getOrElse(Seq.empty)
      val splits = CrossPartitionPlan.withinTtl(live, CoreOptions.CrossPartitionUpsertIndexTtl.get(table.options),
        System.currentTimeMillis())
      val groups = if (hashableKeys) crossGroups else 1
      val shares = Option.when(splits.nonEmpty) {
        val readers = KeyValueReaderBuilder.build(SparkSession.active, table,
          (splits.flatMap(_.files.map(_.schemaId)) :+ table.schema.id).distinct, Seq.empty, needed = Some(Set.empty))
        val dir = KeyIndexShares.dirOf(table, commitUser)
        sharesDir = Some(dir)
        try CrossPartitionBootstrap.run(SparkSession.active, table, splits, readers, groups, dir)
        catch { case e: Throwable => dropShares(); throw e }
      }
      Some(CrossPartitionPlan(base, groups, shares))
    }

  /** The directory of the bootstrap scan's shares while this write runs. */
  @volatile private var sharesDir: Option[Path] = None

  /** Removes the shares; one left behind (a failed delete, a killed driver) `remove_orphan_files` removes. */
  private def dropShares(): Unit = {
    sharesDir.foreach { dir =>
      try table.fileIO.fs(dir).delete(dir, true)
      catch { case _: IOException => () }
    }
    sharesDir = None
  }

  /** A cross-partition write's assigner groups, one task each. */
  private lazy val crossGroups: Int = math.min(dynamicGroups, BucketTagFunction.MaxBuckets)

  /** The assigner groups of a dynamic-bucket write: `dynamic-bucket.assigner-parallelism` (else Spark's
   *  default parallelism), at most `dynamic-bucket.initial-buckets` and `dynamic-bucket.max-buckets`. */
  private lazy val dynamicGroups: Int = {
    val parallelism = CoreOptions.DynamicBucketAssignerParallelism.get(table.options)
      .getOrElse(SparkSession.active.sparkContext.defaultParallelism)
    val max = CoreOptions.DynamicBucketMaxBuckets.getOrDefault(table.options)
    (Seq(parallelism) ++ CoreOptions.DynamicBucketInitialBuckets.get(table.options) ++ Seq(max).filter(_ > 0)).min
  }

  /** An unpartitioned dynamic-bucket table is written by exactly one task per assigner group, as a
   *  fixed-bucket table by one per bucket ([[oneTaskPerBucket]]): no group shares a task, and no
   *  coalescing of small shuffle partitions leaves one task to assign every key. */
  private lazy val oneTaskPerGroup: Boolean =
    dynamicByGroup && table.schema.partitionKeys.isEmpty && dynamicGroups <= BucketTagFunction.MaxBuckets

  /** A cross-partition upsert table is written by one task per assigner group of key hashes, whatever the
   *  partition (a key's rows may be in any); without hashable keys, by one task. */
  private lazy val crossByGroup: Boolean = table.hasCrossPartitionUpsert && hashableKeys

  /** Whether the bucket functions can compute a dynamic-bucket table's key hash groups; otherwise all
   *  rows of a partition go to one task. */
  private lazy val dynamicByGroup: Boolean = table.hasDynamicBuckets && !table.hasCrossPartitionUpsert && hashableKeys

  /** Whether the bucket functions can hash this table's bucket key ([[lamina.spark.BucketTransformFunction]]). */
  private lazy val hashableKeys: Boolean = BucketTransformFunction.supports(
    table.schema.bucketKeys.map(k => SparkTypes.toSpark(table.schema.field(k).get.dataType)))

  /** The tasks of a write with one task per bucket or assigner group: bucket (or group) b's rows in shuffle
   *  partition b, through the `bucket_tag` function. */
  private lazy val oneTaskEach: Option[Int] =
    if (oneTaskPerBucket) Some(table.schema.numBuckets)
    else if (oneTaskPerGroup) Some(dynamicGroups)
    else if (crossByGroup) Some(crossGroups)
    else None

  /** Primary-key tables: all rows of a key reach one task, sorted by key there, so each writer's files
   *  are sorted runs; rows are clustered by Paimon's bucket where the catalog's functions can compute it
   *  (each bucket written by one task), else by partition and bucket-key columns. Dynamic buckets: by
   *  partition and assigner group ([[DynamicBucketPlan]]), else by partition alone (one task for an
   *  unpartitioned table). Append tables need neither. */
  override def requiredDistribution(): Distribution = {
    val schema = table.schema
    def column(c: String): ConnectorExpression = ColumnReferences.column(c)
    if (!table.isPrimaryKeyTable) Distributions.unspecified()
    else if (oneTaskEach.isDefined) Distributions.clustered(Array(Expressions.apply(BucketTagFunction.Name,
          (Expressions.literal(Integer.valueOf(oneTaskEach.get)) +: schema.bucketKeys.map(column)): _*)))
    else if (dynamicByGroup) Distributions.clustered(
      (schema.partitionKeys.map(column) :+ ColumnReferences.bucket(dynamicGroups, schema.bucketKeys)).toArray)
    else if (table.hasCrossPartitionUpsert) Distributions.ordered(requiredOrdering())
    else if (table.hasDynamicBuckets && schema.partitionKeys.nonEmpty)
      Distributions.clustered(schema.partitionKeys.map(column).toArray)
    else if (table.hasDynamicBuckets) Distributions.ordered(requiredOrdering())
    else if (byBucket) Distributions.clustered(
      (schema.partitionKeys.map(column) :+ ColumnReferences.bucket(schema.numBuckets, schema.bucketKeys)).toArray)
    else Distributions.clustered((schema.partitionKeys ++ schema.bucketKeys).distinct.map(column).toArray)
  }

  /** Whether the bucket functions can compute this table's buckets (see [[lamina.spark.BucketTransformFunction]]). */
  private lazy val byBucket: Boolean = table.isPrimaryKeyTable && table.schema.numBuckets > 0 && hashableKeys

  /** An unpartitioned table with no more buckets than the session's shuffle partitions is written by
   *  exactly one task per bucket: as many shuffle partitions as buckets, bucket b's rows in partition b.
   *  (More buckets than that: clustered by bucket id over the usual shuffle partitions.) */
  private lazy val oneTaskPerBucket: Boolean =
    byBucket && table.schema.partitionKeys.isEmpty && table.schema.numBuckets <= math.min(
      BucketTagFunction.MaxBuckets, SparkSession.active.sessionState.conf.numShufflePartitions)

  override def requiredNumPartitions(): Int =
    if (oneTaskEach.isDefined) oneTaskEach.get
    else if (table.hasDynamicBuckets && !dynamicByGroup && table.schema.partitionKeys.isEmpty) 1
    else if (table.hasCrossPartitionUpsert) 1
    else 0

  /** Sorted by key within each task: a cross-partition upsert's records, old partitions' -D records
   *  included, then reach each (partition, bucket) in key order (by the key alone: the partition of a
   *  row-level delete is not among the columns Spark sorts). */
  override def requiredOrdering(): Array[SortOrder] =
    if (!table.isPrimaryKeyTable) Array.empty
    else (if (table.hasCrossPartitionUpsert) table.schema.trimmedPrimaryKeys
          else (table.schema.partitionKeys ++ table.schema.trimmedPrimaryKeys).distinct)
      .map(c => Expressions.sort(ColumnReferences.column(c), SortDirection.ASCENDING)).toArray

  override def useCommitCoordinator(): Boolean = false

  /** Set once the snapshot may reference the written files (committed, or state unknown): from
   *  then on, abort must not delete them. */
  @volatile private var filesMayBeReferenced = false

  /** The files the last commit of this write's tasks added ([[WriteMetrics]]). */
  @volatile private var committedMessages: Seq[CommitMessage] = Seq.empty

  override def supportedCustomMetrics(): Array[CustomMetric] = WriteMetrics.supported(table.capabilities.looksUp)

  override def reportDriverMetrics(): Array[CustomTaskMetric] =
    WriteMetrics.of(committedMessages, Some(compactTasks.lookupCache).filter(_ => table.capabilities.looksUp))

  override def commit(messages: Array[WriterCommitMessage]): Unit = {
    val written = messages.toSeq.collect { case m: LaminaWriterCommitMessage => m }
    val msgs = written.flatMap(_.messages)
    val committed =
      try commitFiles(msgs, DeletedPositions.merged(written.flatMap(_.deleted)),
          written.map(_.rows).foldLeft(WrittenRows())(_ + _))
      catch {
        case e: CommitStateUnknownException => filesMayBeReferenced = true; throw e
      } finally dropShares()
    filesMayBeReferenced = committed.isDefined
    if (committed.isDefined) committedMessages = msgs
    committed.foreach(id => compactAfter(msgs, commitUser, id, None))
  }

  /** The counts of `rows` this write knows for what they say ([[RowCounts]]): a primary-key table's
   *  row-level DML counts its inserts, updates and deletes; its other writes count upserts, except a
   *  MERGE of deletes planned as a write (deletes of keys that may be absent); an append table counts
   *  the rows an INSERT or overwrite wrote, the changes of DML with deletion vectors, and the rows a
   *  copy-on-write DELETE dropped (`readRows`, the rows of the files it replaces, less those it wrote). */
  private def rowCounts(rows: WrittenRows, readRows: => Long): RowCounts = {
    val changes = RowCounts(Some(rows.inserted), Some(rows.updated), Some(rows.deleted))
    if (table.isPrimaryKeyTable) {
      if (command.isDefined) changes
      else if (info.options().containsKey(MergeShapes.RowKindOption)) RowCounts.Unknown
      else RowCounts(upserted = Some(rows.upserted))
    } else
      mode match {
        case WriteMode.Append | WriteMode.OverwriteDynamic | _: WriteMode.OverwriteByFilter =>
          RowCounts(inserted = Some(rows.inserted))
        case _: WriteMode.MarkDeleted => changes
        case _: WriteMode.CopyOnWrite =>
          if (command.contains(Command.DELETE)) RowCounts(deleted = Some(readRows - rows.inserted)) else RowCounts.Unknown
      }
  }

  private def commitFiles(msgs: Seq[CommitMessage], deleted: DeletedPositions, written: WrittenRows): Option[Long] = {
    mode match {
      case WriteMode.Append =>
        TableWriter.commitAppend(table, msgs, commitUser, operation = operation(CommitOperation.Write),
          rows = rowCounts(written, 0), keyIndexBase = crossPartitionPlan.map(_.snapshotId))
      case WriteMode.OverwriteByFilter(filters) =>
        TableWriter.commitOverwrite(table, msgs, WriteModes.partitionFilter(table, filters), commitUser,
          operation = operation(CommitOperation.Overwrite), rows = rowCounts(written, 0))
      case WriteMode.OverwriteDynamic =>
        val touched = msgs.map(m => java.nio.ByteBuffer.wrap(m.partition)).toSet
        val op = operation(CommitOperation.Overwrite)
        val rows = rowCounts(written, 0)
        if (table.schema.partitionKeys.isEmpty)
          TableWriter.commitOverwrite(table, msgs, None, commitUser, operation = op, rows = rows)
        else if (touched.nonEmpty)
          TableWriter.commitOverwrite(table, msgs, Some(_ => false), commitUser, Some(touched), operation = op, rows = rows)
        else None
      case WriteMode.CopyOnWrite(read, onlyRemovesRows) =>
        val files = read()
        val id = TableWriter.commitReplace(table, msgs, files, onlyRemovesRows, commitUser,
          operation(CommitOperation.Overwrite), rowCounts(written, files.flatMap(_.files).map(_.rowCount).sum))
        // nothing committed (a DELETE that deleted no row): no snapshot refers to the written files
        if (id.isEmpty) TableWriter.deleteFiles(table, msgs)
        id
      case WriteMode.MarkDeleted(read) =>
        TableWriter.commitMarkDeleted(table, msgs, read(), deleted, commitUser, operation(CommitOperation.Write),
          rowCounts(written, 0))
    }
  }

  override def abort(messages: Array[WriterCommitMessage]): Unit = {
    dropShares()
    if (filesMayBeReferenced) return
    messages.toSeq.foreach {
      case m: LaminaWriterCommitMessage => TableWriter.deleteFiles(table, m.messages)
      case _ =>
    }
  }
}

/** What one task wrote, the rows it marked deleted (a deletion-vector DELETE, UPDATE or MERGE), and
 *  how many rows it was handed of each kind. */
final case class LaminaWriterCommitMessage(messages: Seq[CommitMessage], deleted: Option[DeletedPositions] = None,
    rows: WrittenRows = WrittenRows())
  extends WriterCommitMessage
