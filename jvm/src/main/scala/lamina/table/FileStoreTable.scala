package lamina.table

import org.apache.hadoop.fs.Path

import lamina.errors.{BadInputException, CorruptFileException, NotFoundException}
import lamina.format.{DataFileFormat, DataFileWriters}
import lamina.io.{AtomicCreate, FileIO}
import lamina.mergetree.{KeyValueFileContext, MergeTreeTable}
import lamina.table.bucket.DynamicBucketRules
import lamina.table.branch.BranchManager
import lamina.table.commit.CommitLock
import lamina.table.lease.LeaseManager
import lamina.table.manifest.{ManifestStore, SnapshotEntries}
import lamina.table.options.{CoreOptions, TableCapabilities, TableOperation, UnsupportedFeatures}
import lamina.table.schema.{SchemaManager, TableSchema}
import lamina.table.snapshot.{ChangelogManager, Snapshot, SnapshotManager}

/** A table on storage at one schema: its path, schema, managers and paths. Cheap to create;
 *  serializable so executors can write and read its files. `dynamicOptions` are the options one read
 *  or write sets on top of the table's own (session conf and query options, checked by the Spark
 *  layer); they are never stored, and survive [[withSchema]].
 *  `branch` picks whose `snapshot/`, `schema/` and `tag/` directories the managers read
 *  ([[BranchManager]]); data files and manifests are the table directory's whatever the branch.
 *  `commitLock` is the metastore's lock around each snapshot commit ([[CommitLock]]).
 *  Invariant: `schema` is a committed schema file of this table's branch. */
final case class FileStoreTable(fileIO: FileIO, path: Path, name: String, schema: TableSchema,
    dynamicOptions: Map[String, String] = Map.empty, branch: String = BranchManager.Main,
    commitLock: CommitLock = CommitLock.Unlocked) {
  def options: Map[String, String] = if (dynamicOptions.isEmpty) schema.options else schema.options ++ dynamicOptions

  /** The directory of this branch's metadata: the table's for main, `branch/branch-<name>` otherwise. */
  def branchPath: Path = BranchManager.branchPath(path, branch)
  def snapshotManager: SnapshotManager = new SnapshotManager(fileIO, branchPath, name)
  def changelogManager: ChangelogManager = new ChangelogManager(fileIO, branchPath)
  def schemaManager: SchemaManager = new SchemaManager(fileIO, branchPath, name)
  def branchManager: BranchManager = new BranchManager(fileIO, path, baseName)
  def leaseManager: LeaseManager = new LeaseManager(fileIO, branchPath)

  /** The table's name without its branch suffix. */
  def baseName: String = name.split('$').head

  /** The same table on branch `b` at that branch's latest schema (`main`: the table itself); the name
   *  becomes `db.t$branch_b`, as Paimon names it. A branch that does not exist is a [[NotFoundException]]. */
  def onBranch(b: String): FileStoreTable = {
    val target = BranchManager.normalize(b)
    if (target == branch) return this
    if (!BranchManager.isMain(target)) branchManager.requireExists(target)
    val named = if (BranchManager.isMain(target)) baseName else s"$baseName$$branch_$target"
    val s = new SchemaManager(fileIO, BranchManager.branchPath(path, target), named).latest()
      .getOrElse(throw new NotFoundException(s"Branch '$target' of table $baseName has no schema"))
    copy(name = named, schema = s, branch = target)
  }
  def paths: FileStorePaths = new FileStorePaths(path, schema.partitionKeys, schema.partitionTypes,
    CoreOptions.PartitionDefaultName.getOrDefault(options), CoreOptions.PartitionLegacyName.getOrDefault(options),
    ExternalDataRoots.of(options, name))
  def manifestStore: ManifestStore = new ManifestStore(fileIO, paths,
    CoreOptions.ManifestCompression.getOrDefault(options), schema.partitionTypes)

  /** The checked reader of a snapshot's live files. */
  def snapshotEntries: SnapshotEntries = new SnapshotEntries(manifestStore, snapshotManager.snapshotPath, name)
  def isPrimaryKeyTable: Boolean = schema.primaryKeys.nonEmpty

  /** What the merge tree needs to write this table version's key-value files with `writers`. */
  def keyValueFiles(writers: DataFileWriters): KeyValueFileContext =
    KeyValueFileContext.of(name, fileIO, KeyValueLayout(schema), options, writers)

  /** What this table does at this schema with these options, resolved once ([[TableCapabilities]]). */
  @transient lazy val capabilities: TableCapabilities = TableCapabilities.of(options, isPrimaryKeyTable, name)

  /** What the merge tree's readers and lookups know of this table version, resolved once. */
  @transient lazy val mergeTree: MergeTreeTable =
    MergeTreeTable.of(name, path.toString, fileIO, KeyValueLayout(schema), capabilities, options)

  /** Whether the latest snapshot has live data files. */
  def holdsDataFiles: Boolean = snapshotManager.latest().exists(s => snapshotEntries.live(s).nonEmpty)
  def numBuckets: Int = schema.numBuckets

  /** A primary-key table with `bucket` = -1: its keys' buckets are assigned through its hash index. */
  def hasDynamicBuckets: Boolean = isPrimaryKeyTable && numBuckets == -1

  /** A primary key leaving out a partition column, with dynamic buckets: a key moves between partitions. */
  def hasCrossPartitionUpsert: Boolean = DynamicBucketRules.isCrossPartition(schema)

  /** Paimon's postpone bucket (`bucket` = -2): each partition has a fixed count of its own, the first
   *  write's; files in `bucket-postpone` (Paimon's streaming writers) wait there, unread, until a
   *  compaction of Paimon's assigns them to buckets. */
  def hasPostponeBuckets: Boolean = isPrimaryKeyTable && numBuckets == -2

  /** Whether each partition has a fixed bucket count (the table's, or its own after a rescale). */
  def hasFixedBucketCounts: Boolean = numBuckets > 0 || hasPostponeBuckets
  def fileFormat: DataFileFormat = CoreOptions.FileFormat.getOrDefault(options)

  /** Every format the table writes data files in ([[CoreOptions.fileFormats]]). */
  def fileFormats: Seq[DataFileFormat] = CoreOptions.fileFormats(options)

  /** The table at the schema `snapshot` was written with; a snapshot that names a schema the table
   *  does not have is corruption of the snapshot file. */
  def atSchemaOf(snapshot: Snapshot): FileStoreTable =
    if (snapshot.schemaId == schema.id) this
    else {
      val s =
        try schemaManager.schema(snapshot.schemaId)
        catch {
          case e: NotFoundException => throw new CorruptFileException(snapshotManager.snapshotPath(snapshot.id).toString, -1,
              s"a schema id of table $name", snapshot.schemaId.toString, e.getMessage, e)
        }
      withSchema(s)
    }

  /** Refuses `operation` when the table uses a Paimon feature Lamina does not implement and that
   *  the operation would get wrong ([[UnsupportedFeatures]]). */
  def require(operation: TableOperation): Unit = {
    UnsupportedFeatures.check(name, options, isPrimaryKeyTable, operation)
    if (operation != TableOperation.Read) DynamicBucketRules.check(schema, name)
  }

  /** Refuses to commit where two writers could both take one snapshot id: a store without an atomic
   *  create (an object store without conditional writes) and no commit lock. */
  def requireSafeCommits(): Unit = {
    val create = fileIO.atomicCreate(path)
    if (!create.safeWithoutLock && commitLock == CommitLock.Unlocked)
      throw new BadInputException(
        s"Table $name cannot be committed to safely: its store ($path) creates files by ${create.description}, " +
          "which two writers can both pass, and no commit lock is held. Turn conditional writes on (catalog option " +
          s"'s3.create.conditional.enabled' = 'true', Hadoop's '${AtomicCreate.S3AConditionalKey}', for a store that " +
          "honours If-None-Match) or use metastore 'jdbc' or 'hive' with 'lock.enabled' = 'true'. Nothing was written.")
  }

  /** The same table at another committed schema (used for time travel to older snapshots). */
  def withSchema(s: TableSchema): FileStoreTable = copy(schema = s)

  /** The same table with `more` set for one read or write (on top of earlier dynamic options). */
  def withDynamicOptions(more: Map[String, String]): FileStoreTable =
    if (more.isEmpty) this else copy(dynamicOptions = dynamicOptions ++ more)
}
