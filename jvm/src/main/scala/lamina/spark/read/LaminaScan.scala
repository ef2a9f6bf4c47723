package lamina.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.expressions.NamedReference
import org.apache.spark.sql.connector.expressions.filter.{Predicate => V2Predicate}
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.connector.read.{Statistics => SparkStatistics}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import lamina.errors.CorruptFileException
import lamina.dv.DeletionVectorFilter
import lamina.errors.BadInputException
import lamina.format.DataFileFormat
import lamina.mergetree.KeyValueReaders
import lamina.mergetree.function.MergeFunctions
import lamina.spark.{ColumnReferences, DataFileFormats, RowPositionColumns, SparkFilters, SumMetric}
import lamina.spark.stream.LaminaMicroBatchStream
import lamina.table.{FileStoreTable, KeyValueLayout}
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.lease.LeaseKeeper
import lamina.table.scan.{ChangeScan, DataSplit, DiffScan, DiffSplit, FileStoreScan, FormatAbilities, IncrementalRange}
import lamina.table.scan.{KeySet, KeySetPruning, ReadPlan, ReadRequest, ReaderKind, ScanMode}
import lamina.table.snapshot.Snapshot
import lamina.table.stats.StatisticsFile

/** The planned scan of one snapshot: one input partition per (partition, bucket) split, or per
 *  file group when a split is large. An empty table plans no partitions. With an incremental read's
 *  options ([[IncrementalRange]]) the table's rows and `$audit_log` read the changes of the
 *  snapshots it spans instead ([[ChangeScan]]), as written: a primary-key table's records unmerged. */
class LaminaScan(table: FileStoreTable, snapshotId: Option[Long], required: StructType, filters: Seq[Filter],
    limit: Option[Int], mode: ScanMode = ScanMode.Normal, streamOptions: Map[String, String] = Map.empty,
    fixed: Option[FixedSplits] = None)
  extends Scan with Batch with SupportsReportStatistics with SupportsRuntimeV2Filtering {

  /** The incremental read the options ask for (only of the table's rows and `$audit_log`). */
  private lazy val incremental: Option[IncrementalRange] =
    if (fixed.isEmpty && (mode == ScanMode.Normal || mode == ScanMode.AuditLog)) IncrementalRange.of(table) else None

  /** Whether the splits hold changes, read as written rather than merged. */
  private def readsChanges: Boolean = fixed.map(_.changes).getOrElse(incremental.isDefined)

  /** The buckets of an incremental read in diff mode, whose two sides the splits hold. */
  private lazy val diffs: Option[Seq[DiffSplit]] = incremental.collect {
    case IncrementalRange(start, end, IncrementalRange.Diff) => new DiffScan(table).between(start, end)
  }

  private lazy val allSplits: Seq[DataSplit] = (fixed, incremental, diffs) match {
    case (Some(f), _, _) => f.splits
    case (_, _, Some(ds)) => ds.flatMap(d => Seq(d.before, d.after))
    case (_, Some(IncrementalRange(start, end, IncrementalRange.Changes(source))), _) =>
      new ChangeScan(table).between(start, end, source)
    case _ => snapshotSplits
  }

  /** The values a join's other side holds for key or partition columns, handed over when the query
   *  runs ([[filter]]): only splits, files and rows that can hold them are read ([[KeySetPruning]]). */
  @volatile private var keySets: Seq[KeySet] = Seq.empty
  @volatile private var keyPruned: Option[(Seq[DataSplit], Int)] = None

  private def splits: Seq[DataSplit] =
    if (keySets.isEmpty) allSplits
    else keyPruned.getOrElse {
      val p = KeySetPruning.prune(table, allSplits, keySets)
      keyPruned = Some(p)
      p
    }._1

  /** The columns a join may filter this scan on: a primary-key table's key and partition columns
   *  whose types compare exactly, in a read of a snapshot's merged rows. */
  override def filterAttributes(): Array[NamedReference] =
    if (!keyFilterable) Array.empty
    else required.fields.filter(f => keyColumns.contains(f.name) && KeySet.supports(f.dataType))
      .map(f => ColumnReferences.column(f.name))

  private def keyColumns: Set[String] = (table.schema.trimmedPrimaryKeys ++ table.schema.partitionKeys).toSet

  private def keyFilterable: Boolean =
    table.isPrimaryKeyTable && mode == ScanMode.Normal && fixed.isEmpty && incremental.isEmpty

  /** Takes the key sets of `predicates` on the filter columns; a set of more than
   *  `merge.key-filter.max-keys` values is ignored (a MERGE's source is read up to one value more,
   *  [[lamina.spark.MergeKeyFilter]]: such a set may be cut short). */
  override def filter(predicates: Array[V2Predicate]): Unit = if (keyFilterable) {
    val maxKeys = CoreOptions.MergeKeyFilterMaxKeys.getOrDefault(table.options)
    val added = predicates.toSeq.flatMap(RuntimeKeyFilters.keySet(_, required))
      .filter(s => keyColumns.contains(s.column) && s.size <= maxKeys)
    if (added.nonEmpty) {
      keySets = keySets ++ added
      keyPruned = None
      val applied = keySets.map(s => required.fieldNames.indexOf(s.column) -> s).filter(_._1 >= 0)
      runtimeKeys.value =
        if (applied.isEmpty) None
        else Some(RuntimeKeys.Sets(applied.map(_._1).toArray, applied.map(a => required(a._1).dataType).toArray,
            SparkSession.active.sparkContext.broadcast(applied.map(_._2).toArray), pageFiltered(keySets),
            CoreOptions.MergeKeyLookupRowsPerKey.getOrDefault(table.options), lookupBuilders))
    }
  }

  /** Readers of every column of the files, without filters, from which a MERGE builds the local lookup
   *  files its runs lack, when `merge.key-lookup.build` asks for it ([[lamina.mergetree.KeyLookups]]). */
  private def lookupBuilders: Option[KeyValueReaders] =
    Option.when(mergesRuns && CoreOptions.MergeKeyLookupBuild.getOrDefault(table.options) &&
      !table.capabilities.deletionVectors && CoreOptions.MergeKeyLookupRowsPerKey.getOrDefault(table.options) > 0)(
      KeyValueReaderBuilder.build(SparkSession.active, table, schemaIds, Seq.empty))

  /** Whether the readers merge sorted runs, where a runtime key set narrows the merge ([[ReadsChosenKeys]]). */
  private def mergesRuns: Boolean = readerKind match {
    case ReaderKind.MergedBatches | ReaderKind.MergedRows => true
    case _ => false
  }

  /** The merge's readers skipping the pages that hold none of `sets`' keys ([[KeyPageFilter]]), for
   *  the readers that merge sorted runs. */
  private def pageFiltered(sets: Seq[KeySet]): Option[KeyValueReaders] =
    Option.when(mergesRuns)(KeyPageFilter.of(table, sets)).flatten.map(f =>
      KeyValueReaderBuilder.build(SparkSession.active, table, schemaIds, keyFilters :+ f,
        Some(valueColumns.fieldNames.toSet)))

  /** What the readers get of [[keySets]] ([[KeySetReaderFactory]]). */
  private val runtimeKeys = new RuntimeKeys

  /** A streaming read of the same columns (and of `$audit_log` with its kinds), each micro-batch's
   *  splits read by the factory of a scan of exactly those splits. */
  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    new LaminaMicroBatchStream(table, table.options ++ streamOptions, checkpointLocation,
      (splits, changes) =>
        new LaminaScan(table, None, required, filters, None, mode, fixed = Some(FixedSplits(splits, changes)))
          .createReaderFactory())

  /** The lease on the snapshot read, held from planning until the query that planned it ends (or this
   *  scan is garbage-collected, when planned outside a query) ([[LeaseKeeper]], [[QueryLifetime]]), so
   *  that snapshot expiration never removes files its tasks have yet to read. */
  @transient @volatile private var lease: Option[LeaseKeeper#Held] = None

  /** The snapshot to read, leased; the latest one is looked up again if it expired before the lease
   *  was written. */
  private def leasedSnapshot(): Option[Snapshot] = {
    // a row-level operation's scan is pinned when built: an empty table then stays empty to it
    def resolve() = snapshotId.map(table.snapshotManager.snapshot)
      .orElse(if (mode == ScanMode.RowLevel) None else table.snapshotManager.latest())
    val self = new java.lang.ref.WeakReference(this)
    val running = QueryLifetime.current(SparkSession.active)
    val alive = () => self.get() != null && running()
    var snapshot = resolve()
    var settled = false
    while (!settled) snapshot match {
      case None => settled = true
      case Some(s) =>
        val held = LeaseKeeper.Default.tryHold(table.leaseManager, s.id, alive)
        if (snapshotId.nonEmpty || table.snapshotManager.exists(s.id)) { lease = held; settled = true }
        else { held.foreach(_.release()); snapshot = resolve() }
    }
    snapshot
  }

  private def snapshotSplits: Seq[DataSplit] = {
    val snapshot = leasedSnapshot()
    snapshot match {
      case None => Seq.empty
      case Some(s) =>
        val planned = new FileStoreScan(table, s).planned(SparkFilters.toPredicates(filters))
        // key columns equal to literals: their buckets alone (the files' ranges were pruned above)
        val pointKeys = if (table.isPrimaryKeyTable) RuntimeKeyFilters.ofFilters(filters, required, keyColumns) else Nil
        val (all, skippedByKeys) =
          if (pointKeys.isEmpty) (planned.splits, 0) else KeySetPruning.prune(table, planned.splits, pointKeys)
        skippedByStatistics = planned.skippedByStatistics + skippedByKeys
        skippedByIndex = planned.skippedByIndex
        if (mode == ScanMode.ReadOptimized && table.isPrimaryKeyTable) {
          val top = CoreOptions.numLevels(table.options) - 1
          all.map(sp => sp.copy(files = sp.files.filter(_.level == top))).filter(_.files.nonEmpty)
        } else limitSplits(all)
    }
  }

  /** With a LIMIT and no filter that Spark re-applies, reading whole files until the limit is
   *  covered is enough (not where deletion vectors make a file hold fewer rows than it counts). */
  private def limitSplits(all: Seq[DataSplit]): Seq[DataSplit] = limit match {
    case Some(n) if !readsChanges && filters.isEmpty && (!table.isPrimaryKeyTable || readsWithoutMerge) =>
      var covered = 0L
      val out = Seq.newBuilder[DataSplit]
      val it = all.iterator
      while (covered < n && it.hasNext) {
        val s = it.next()
        val files = s.files.filter(f => !skipsLevel0 || f.level > 0).takeWhile { f =>
          val take = covered < n; if (take) covered += liveRows(s, f); take
        }
        out += s.copy(files = files)
      }
      out.result()
    case _ => all
  }

  /** The planning step: which reader kind reads the splits, and how they become partitions. */
  private lazy val plan = new ReadPlan(table.mergeTree,
    ReadRequest(mode, positioned = positioned, changes = readsChanges, diff = diffs.isDefined, microBatch = fixed.nonEmpty))

  private def skipsLevel0 = plan.skipsLevel0
  private def readsWithoutMerge: Boolean = plan.readsWithoutMerge

  /** The rows of `f` that its deletion vector keeps (0 when the vector's count is unknown: the file
   *  cannot cover a LIMIT then). */
  private def liveRows(s: DataSplit, f: DataFileMeta): Long = s.deletionFiles.get(f.fileName) match {
    case None => f.rowCount
    case Some(d) => d.range.cardinality.map(f.rowCount - _).getOrElse(0L)
  }

  override def readSchema(): StructType = required

  /** Files of the snapshot read that its filters skipped by their statistics (0 for reads of changes). */
  @volatile private var skippedByStatistics = 0

  /** Files of the snapshot read that file indexes skipped, beyond those skipped by statistics. */
  @volatile private var skippedByIndex = 0

  override def supportedCustomMetrics(): Array[CustomMetric] = ScanMetrics.supported

  override def reportDriverMetrics(): Array[CustomTaskMetric] =
    Array(SumMetric.value(ScanMetrics.FilesSkippedByStatistics, skippedByStatistics),
      SumMetric.value(ScanMetrics.FilesSkippedByIndex, skippedByIndex),
      SumMetric.value(ScanMetrics.FilesSkippedByKeys, keyPruned.map(_._2.toLong).getOrElse(0L)))

  /** The statistics of the table's last `ANALYZE TABLE` that the snapshot read names ([[ScanStatistics]]);
   *  none for reads of changes, `$audit_log` and `$ro`, and none when the statistics file cannot be read
   *  (it only guides the optimizer: the query itself must not fail on it). */
  override def estimateStatistics(): SparkStatistics =
    if (mode != ScanMode.Normal || fixed.nonEmpty || incremental.nonEmpty) ScanStatistics.Unknown
    else {
      val stats =
        try snapshotId.map(table.snapshotManager.snapshot).orElse(table.snapshotManager.latest())
            .flatMap(new StatisticsFile(table).of)
        catch { case _: CorruptFileException | _: java.io.IOException => None }
      ScanStatistics.of(stats, required)
    }

  override def description(): String =
    s"LaminaScan ${table.name}${snapshotId.map(id => s" @ snapshot $id").getOrElse("")}" +
      (if (filters.nonEmpty) s" filters=[${filters.mkString(", ")}]" else "") + limit.map(l => s" limit=$l").getOrElse("") +
      keyLookupRule

  /** What `EXPLAIN` says of key lookups, where a runtime key set may take them ([[lamina.mergetree.KeyLookupRun]]):
   *  a single integral key, no deletion vectors, and local lookup files with values that lookup compaction keeps
   *  or `merge.key-lookup.build` builds. Which runs are looked up is decided in the tasks, by the keys each run's
   *  files hold and the local files each executor has. */
  private def keyLookupRule: String = {
    val rowsPerKey = CoreOptions.MergeKeyLookupRowsPerKey.getOrDefault(table.options)
    val build = CoreOptions.MergeKeyLookupBuild.getOrDefault(table.options)
    val applies = keyFilterable && !table.capabilities.deletionVectors && rowsPerKey > 0 &&
      (build || table.capabilities.looksUp) && KeyValueReaders.longKeyOf(KeyValueLayout(table.schema)).isDefined
    if (!applies) ""
    else
      s" keyLookups=[runs above level 0 whose files have local lookup files${if (build) " (built where missing)" else ""}, " +
        s"at most one key per $rowsPerKey rows]"
  }

  override def toBatch: Batch = this

  @volatile private var planned = false

  /** The splits whose rows this scan handed Spark: none until Spark planned its partitions. */
  def plannedSplits: Seq[DataSplit] = if (planned) splits else Seq.empty

  /** Filters the file readers apply (row groups, pages): none where every row of a file read must
   *  reach Spark, because the file is rewritten ([[ScanMode.RowLevel]]) or its rows' positions are
   *  counted (a format whose reader does not say them). */
  private def readFilters: Seq[Filter] =
    if (positioned) { if (readsRowIndex) filters else Seq.empty }
    else if (mode == ScanMode.RowLevel) Seq.empty
    else filters

  /** Whether the reader of every format of the files read says each row's position in its file (row
   *  groups skipped included). */
  private def readsRowIndex: Boolean = fileFormats.forall(DataFileFormats.fillsRowIndex)

  /** The formats of the files this scan reads, by their names (a table's levels, or its history, may
   *  hold several); the table's when it reads none. */
  private lazy val fileFormats: Seq[DataFileFormat] = {
    val named = splits.flatMap(_.files.flatMap(f => DataFileFormat.ofFile(f.fileName))).distinct
    if (named.isEmpty) table.fileFormats else named
  }

  /** Whether the rows carry their file and position ([[RowPositionColumns]]): only whole reads of an
   *  append table's snapshot say them. */
  private lazy val positioned: Boolean = {
    val asked = RowPositionColumns.requested(required)
    if (asked && (readsChanges || diffs.isDefined || mode == ScanMode.AuditLog || table.isPrimaryKeyTable))
      throw new BadInputException(s"${RowPositionColumns.Names.mkString(" and ")} of table ${table.name} are read " +
        "by reads of a snapshot only, not of changes")
    asked
  }

  override def planInputPartitions(): Array[InputPartition] = {
    planned = true
    if (diffs.isDefined) return diffs.get.map(DiffInputPartition(_)).toArray
    plan.partitions(splits, readerKind, targetBytes = 128L * 1024 * 1024).map(LaminaInputPartition(_)).toArray
  }

  /** The reader kind of this scan ([[ReadPlan.kind]]), with what Spark's readers of the format can do. */
  private lazy val readerKind: ReaderKind = {
    val spark = SparkSession.active
    val values = valueColumns
    plan.kind(splits,
      FormatAbilities(
        batches = DataFileReaders.supportsBatch(spark, table, fileFormats, required),
        rowPositions = readsRowIndex,
        mergedBatches = () => columnarMerge(spark, keyValueReaders, schemaIds, values)))
  }

  private lazy val schemaIds: Seq[Long] = splits.flatMap(_.files.map(_.schemaId)).distinct

  /** The columns a merge returns: `$audit_log`'s row kind is not a table column. */
  private def valueColumns: StructType =
    StructType(required.fields.filterNot(f => mode == ScanMode.AuditLog && f.name == ScanMode.RowKindColumn))

  /** Below the merge only key filters are safe: a value filter could hide the newest version. */
  private def keyFilters: Seq[Filter] =
    readFilters.filter(f => f.references.forall(table.schema.trimmedPrimaryKeys.contains))

  /** The merge tree's readers of a primary-key table's files, for the value columns a scan returns. */
  private lazy val keyValueReaders: KeyValueReaders =
    KeyValueReaderBuilder.build(SparkSession.active, table, schemaIds, keyFilters, Some(valueColumns.fieldNames.toSet))

  /** Whether the merge can hand Spark columnar batches: every file read as batches, a single integral
   *  key, an engine that returns a key's single insert unchanged, atomic columns only. */
  private def columnarMerge(spark: SparkSession, kv: KeyValueReaders, schemaIds: Seq[Long], values: StructType): Boolean =
    kv.allBatched(schemaIds) && kv.keyOrder.asLong.isDefined &&
      values.fields.forall(f => ColumnarMergeReader.supports(f.dataType)) &&
      MergeFunctions.create(table.schema.fields, table.schema.primaryKeys, table.options, table.name)()
        .singleInsertIsResult &&
      DataFileReaders.supportsBatch(spark, table, fileFormats, values)

  /** The readers of the splits; with key sets, only rows holding their values are handed on. */
  override def createReaderFactory(): PartitionReaderFactory =
    if (keyFilterable) KeySetReaderFactory(splitReaderFactory(), runtimeKeys) else splitReaderFactory()

  private def splitReaderFactory(): PartitionReaderFactory = {
    val spark = SparkSession.active
    val values = valueColumns
    val auditLog = mode == ScanMode.AuditLog
    readerKind match {
      case ReaderKind.PositionedRows =>
        val data = StructType(required.fields.filterNot(f => RowPositionColumns.Names.contains(f.name)))
        new RowPositionReaderFactory(
          DataFileReaders.bySchema(spark, table, schemaIds, data, readFilters, withRowIndex = readsRowIndex), required,
          table.name, DeletionVectorFilter(table.fileIO), withRowIndex = readsRowIndex)
      case ReaderKind.DeletionVectorBatches =>
        // rows' positions from the reader only where filters may skip rows in a file; else counted
        val rowIndex = readFilters.nonEmpty
        new DeletionVectorBatchReaderFactory(
          DataFileReaders.forSchema(spark, table, table.schema, required, readFilters, returningBatch = true,
            withRowIndex = rowIndex), table.name, table.fileIO, rowIndex)
      case ReaderKind.FileBatches =>
        val filtersRead = if (table.isPrimaryKeyTable) keyFilters else readFilters
        new ColumnarReaderFactory(Map(table.schema.id ->
            DataFileReaders.forSchema(spark, table, table.schema, required, filtersRead, returningBatch = true)), table.name)
      case ReaderKind.AppendDiff =>
        new DiffAppendReaderFactory(DataFileReaders.factory(spark, table, schemaIds, values, readFilters), auditLog, required)
      case ReaderKind.MergedDiff =>
        // a diff compares whole rows: every column is read
        new DiffReaderFactory(KeyValueReaderBuilder.build(spark, table, schemaIds, keyFilters), values, auditLog, required)
      case ReaderKind.AppendAuditLog =>
        new AuditLogAppendReaderFactory(DataFileReaders.factory(spark, table, schemaIds, values, readFilters), required)
      case ReaderKind.FileRows =>
        DataFileReaders.factory(spark, table, schemaIds, required, readFilters)
      case ReaderKind.Changes =>
        new ChangesReaderFactory(keyValueReaders, values, auditLog = auditLog, outputSchema = required)
      case ReaderKind.MergedBatches =>
        new ColumnarMergeReaderFactory(keyValueReaders, values)
      case ReaderKind.MergedRows =>
        val direct = DataFileReaders.bySchema(spark, table, schemaIds, values, keyFilters)
        new MergeReaderFactory(keyValueReaders, values, direct, auditLog = auditLog, outputSchema = required)
    }
  }
}

final case class LaminaInputPartition(split: DataSplit) extends InputPartition

/** Splits a scan reads as given (a micro-batch's), as `changes` or read whole. */
final case class FixedSplits(splits: Seq[DataSplit], changes: Boolean)
