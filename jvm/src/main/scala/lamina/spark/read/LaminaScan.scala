package lamina.spark.read

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import lamina.mergetree.KeyValueReaders
import lamina.mergetree.function.MergeFunctions
import lamina.spark.SparkFilters
import lamina.table.FileStoreTable
import lamina.table.manifest.DataFileMeta
import lamina.table.options.CoreOptions
import lamina.table.lease.LeaseKeeper
import lamina.table.scan.{DataSplit, FileStoreScan, SnapshotDeletionFiles}
import lamina.table.snapshot.Snapshot

/** The planned scan of one snapshot: one input partition per (partition, bucket) split, or per
 *  file group when a split is large. An empty table plans no partitions. */
class LaminaScan(table: FileStoreTable, snapshotId: Option[Long], required: StructType, filters: Seq[Filter],
    limit: Option[Int], mode: ScanMode = ScanMode.Normal)
  extends Scan with Batch {

  /** The lease on the snapshot read, held from planning until the query that planned it ends (or this
   *  scan is garbage-collected, when planned outside a query) ([[LeaseKeeper]], [[QueryLifetime]]), so
   *  that snapshot expiration never removes files its tasks have yet to read. */
  @transient @volatile private var lease: Option[LeaseKeeper#Held] = None

  /** The snapshot to read, leased; the latest one is looked up again if it expired before the lease
   *  was written. */
  private def leasedSnapshot(): Option[Snapshot] = {
    // a copy-on-write scan is pinned when built: an empty table then stays empty to it
    def resolve() = snapshotId.map(table.snapshotManager.snapshot)
      .orElse(if (mode == ScanMode.CopyOnWrite) None else table.snapshotManager.latest())
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

  private lazy val splits: Seq[DataSplit] = {
    val snapshot = leasedSnapshot()
    snapshot match {
      case None => Seq.empty
      case Some(s) =>
        val all = new FileStoreScan(table, s).plan(SparkFilters.toPredicates(filters))
        if (mode == ScanMode.ReadOptimized && table.isPrimaryKeyTable) {
          val top = CoreOptions.numLevels(table.options) - 1
          all.map(sp => sp.copy(files = sp.files.filter(_.level == top))).filter(_.files.nonEmpty)
        } else limitSplits(all)
    }
  }

  /** With a LIMIT and no filter that Spark re-applies, reading whole files until the limit is
   *  covered is enough (not where deletion vectors make a file hold fewer rows than it counts). */
  private def limitSplits(all: Seq[DataSplit]): Seq[DataSplit] = limit match {
    case Some(n) if filters.isEmpty && !table.isPrimaryKeyTable && !SnapshotDeletionFiles.enabled(table) =>
      var covered = 0L
      val out = Seq.newBuilder[DataSplit]
      val it = all.iterator
      while (covered < n && it.hasNext) {
        val s = it.next()
        val files = s.files.takeWhile { f =>
          val take = covered < n; if (take) covered += f.rowCount; take
        }
        out += s.copy(files = files)
      }
      out.result()
    case _ => all
  }

  override def readSchema(): StructType = required

  override def description(): String =
    s"LaminaScan ${table.name}${snapshotId.map(id => s" @ snapshot $id").getOrElse("")}" +
      (if (filters.nonEmpty) s" filters=[${filters.mkString(", ")}]" else "") + limit.map(l => s" limit=$l").getOrElse("")

  override def toBatch: Batch = this

  @volatile private var planned = false

  /** The splits whose rows this scan handed Spark: none until Spark planned its partitions. */
  def plannedSplits: Seq[DataSplit] = if (planned) splits else Seq.empty

  /** Filters the file readers apply (row groups, pages): none where every row of a file read must
   *  reach Spark, because the file is rewritten ([[ScanMode.CopyOnWrite]]). */
  private def readFilters: Seq[Filter] = if (mode == ScanMode.CopyOnWrite) Seq.empty else filters

  override def planInputPartitions(): Array[InputPartition] = {
    planned = true
    val target = 128L * 1024 * 1024
    splits.flatMap { s =>
      if (table.isPrimaryKeyTable && mode != ScanMode.ReadOptimized) Seq(LaminaInputPartition(s))
      else {
        // append files need no merging: pack them into partitions of about `target` bytes
        val groups = Seq.newBuilder[Seq[DataFileMeta]]
        var cur = Vector.empty[DataFileMeta]
        var size = 0L
        s.files.foreach { f =>
          if (cur.nonEmpty && size + f.fileSize > target) { groups += cur; cur = Vector.empty; size = 0 }
          cur :+= f; size += f.fileSize
        }
        if (cur.nonEmpty) groups += cur
        groups.result().map(g => LaminaInputPartition(s.copy(files = g)))
      }
    }.toArray
  }

  /** A split is read directly (no merge) when it belongs to an append table, to `$ro`, or is one
   *  sorted run of a primary-key table without deletes. */
  private def direct(s: DataSplit): Boolean =
    !table.isPrimaryKeyTable || mode == ScanMode.ReadOptimized ||
      (mode == ScanMode.Normal && KeyValueReaders.readableDirectly(table, s))

  private lazy val columnar: Boolean = {
    val spark = SparkSession.active
    // batches carry no row positions for deletion vectors
    mode != ScanMode.AuditLog && splits.nonEmpty && splits.forall(direct) && splits.forall(_.deletionFiles.isEmpty) &&
    splits.forall(_.files.forall(_.schemaId == table.schema.id)) &&
    !(table.isPrimaryKeyTable && KeyValueReaders.skipsLevel0(table) && splits.exists(_.files.exists(_.level == 0))) &&
    DataFileReaders.supportsBatch(spark, table, required)
  }

  /** Whether the merge can hand Spark columnar batches: every file read as batches (none with a
   *  deletion vector, which needs row positions), a single integral
   *  key, an engine that returns a key's single insert unchanged, atomic columns only. */
  private def columnarMerge(spark: SparkSession, kv: KeyValueReaders, schemaIds: Seq[Long], values: StructType): Boolean =
    kv.allBatched(schemaIds) && splits.forall(_.deletionFiles.isEmpty) && kv.keyOrder.asLong.isDefined &&
      values.fields.forall(f => ColumnarMergeReader.supports(f.dataType)) &&
      MergeFunctions.create(table.schema.fields, table.schema.primaryKeys, table.options, table.name)()
        .singleInsertIsResult &&
      DataFileReaders.supportsBatch(spark, table, values)

  override def createReaderFactory(): PartitionReaderFactory = {
    val schemaIds = splits.flatMap(_.files.map(_.schemaId)).distinct
    val spark = SparkSession.active
    if (columnar) {
      val keyOnly =
        if (table.isPrimaryKeyTable) readFilters.filter(_.references.forall(table.schema.trimmedPrimaryKeys.contains))
        else readFilters
      return new ColumnarReaderFactory(Map(table.schema.id ->
          DataFileReaders.forSchema(spark, table, table.schema, required, keyOnly, returningBatch = true)), table.name)
    }
    val values = StructType(required.fields.filterNot(f => mode == ScanMode.AuditLog && f.name == ScanMode.RowKindColumn))
    if (mode == ScanMode.AuditLog && !table.isPrimaryKeyTable)
      new AuditLogAppendReaderFactory(DataFileReaders.factory(spark, table, schemaIds, values, readFilters), required)
    else if (!table.isPrimaryKeyTable || mode == ScanMode.ReadOptimized)
      DataFileReaders.factory(spark, table, schemaIds, required, readFilters)
    else {
      // below the merge only key filters are safe: a value filter could hide the newest version
      val keyFilters = readFilters.filter(f => f.references.forall(table.schema.trimmedPrimaryKeys.contains))
      val kv = KeyValueReaderBuilder.build(spark, table, schemaIds, keyFilters, Some(values.fieldNames.toSet))
      val direct = schemaIds.map { id =>
        val s = if (id == table.schema.id) table.schema else table.schemaManager.schema(id)
        id -> DataFileReaders.forSchema(spark, table, s, values, keyFilters)
      }.toMap
      if (mode == ScanMode.Normal && columnarMerge(spark, kv, schemaIds, values)) new ColumnarMergeReaderFactory(kv, values)
      else new MergeReaderFactory(kv, values, direct, auditLog = mode == ScanMode.AuditLog, outputSchema = required)
    }
  }
}

final case class LaminaInputPartition(split: DataSplit) extends InputPartition
