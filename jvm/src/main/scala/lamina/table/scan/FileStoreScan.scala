package lamina.table.scan

import org.apache.spark.sql.catalyst.InternalRow

import lamina.dv.DeletionFile
import lamina.format.BinaryRowCodec
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.manifest.{DataFileMeta, ManifestEntry, ManifestFileMeta, SimpleStats, ValueStatistics}
import lamina.table.options.CoreOptions
import lamina.table.predicate.{Predicate, PredicateEval}
import lamina.table.schema.TableSchema
import lamina.table.snapshot.Snapshot
import lamina.types.SparkTypes

/** Plans the reading of one snapshot: the live files, pruned by partition filters (first with the
 *  manifests' partition stats, then per entry) and by value filters on file statistics, grouped into
 *  splits by (partition, bucket). */
final class FileStoreScan(table: FileStoreTable, snapshot: Snapshot) {
  private val schema = table.schema
  private val partitionKeys = schema.partitionKeys
  private val partitionSparkTypes = schema.partitionTypes.map(SparkTypes.toSpark)

  def liveEntries(filters: Seq[Predicate] = Nil): Seq[ManifestEntry] = {
    val partFilters = filters.filter(f => f.references.nonEmpty && f.references.forall(partitionKeys.contains))
    val store = table.manifestStore
    val manifestOk: Option[ManifestFileMeta => Boolean] =
      if (partFilters.isEmpty) None
      else Some(m => statsMightMatch(partFilters, m.partitionStats, partitionKeys, schema.partitionTypes.size, None))
    val live = table.snapshotEntries.live(snapshot, manifestOk)
    FileLayoutCheck.check(table, live)
    if (partFilters.isEmpty) live
    else live.filter { e =>
      val row = store.decodePartition(e.partition)
      partFilters.forall(f => PredicateEval.eval(f, partitionValue(row)).getOrElse(true))
    }
  }

  def plan(filters: Seq[Predicate] = Nil): Seq[DataSplit] = planned(filters).splits

  /** The splits of [[plan]], with how many live files of the partitions read the value filters skipped
   *  by the files' statistics, and how many more by the files' indexes ([[FileIndexFilter]], unless
   *  `file-index.read.enabled` is false). */
  def planned(filters: Seq[Predicate] = Nil): FileStoreScan.Planned = {
    // On a primary-key table a file's value statistics describe versions the merge may discard:
    // only filters on key columns (the same in every version of a row) may skip files. With deletion
    // vectors (read without level 0, so without merging) each file holds live rows of its own keys only.
    val unmerged = table.capabilities.readsWithoutMerging
    val valueFilters = filters.filterNot(f => f.references.forall(partitionKeys.contains))
      .filter(f => !table.isPrimaryKeyTable || unmerged || f.references.forall(schema.primaryKeys.contains))
    val schemas = scala.collection.mutable.HashMap.empty[Long, TableSchema]
    def schemaOf(id: Long): TableSchema =
      if (id == schema.id) schema else schemas.getOrElseUpdate(id, table.schemaManager.schema(id))
    // the files waiting in bucket-postpone are read by no one until a compaction assigns their rows
    val live = liveEntries(filters).filter(_.bucket != FileStorePaths.PostponeBucket)
    val byStats = live.filter(e => valueFilters.isEmpty || fileMightMatch(e.file, valueFilters, schemaOf(e.file.schemaId)))
    val indexes = new FileIndexFilter(table.fileIO, schema)
    val useIndexes = valueFilters.nonEmpty && CoreOptions.FileIndexReadEnabled.getOrDefault(table.options)
    val entries = if (!useIndexes) byStats
    else byStats.filter { e =>
      (e.file.embeddedIndex.isEmpty && e.file.extraFiles.isEmpty) ||
      indexes.mightMatch(e.file,
        table.paths.dataFile(table.manifestStore.decodePartition(e.partition), e.bucket, e.file).getParent,
        schemaOf(e.file.schemaId), valueFilters)
    }
    // a table with deletion vectors: each split carries the vectors of its files (the snapshot's own)
    val deletionFiles =
      if (table.capabilities.deletionVectors) SnapshotDeletionFiles.of(table, snapshot, live,
        wholeTable = !filters.exists(f => f.references.nonEmpty && f.references.forall(partitionKeys.contains)))
      else Map.empty[SnapshotDeletionFiles.Key, Map[String, DeletionFile]]
    val splits =
      entries.groupBy(e => (java.nio.ByteBuffer.wrap(e.partition), e.bucket)).toSeq.map { case (key @ (_, bucket), es) =>
        val partition = es.head.partition
        val bucketDir = table.paths.bucketDir(table.manifestStore.decodePartition(partition), bucket)
        val files = es.map(_.file).sortBy(f => (f.minSequenceNumber, f.fileName))
        val dvs = deletionFiles.getOrElse(key, Map.empty)
        DataSplit(snapshot.id, partition, bucket, es.head.totalBuckets, bucketDir.toString, files,
          files.flatMap(f => dvs.get(f.fileName).map(f.fileName -> _)).toMap)
      }.sortBy(s => (s.bucketPath))
    FileStoreScan.Planned(splits, skippedByStatistics = live.size - byStats.size,
      skippedByIndex = byStats.size - entries.size)
  }

  private def partitionValue(row: InternalRow)(name: String): Option[(Any, org.apache.spark.sql.types.DataType)] = {
    val i = partitionKeys.indexOf(name)
    if (i < 0) None else Some((row.get(i, partitionSparkTypes(i)), partitionSparkTypes(i)))
  }

  /** Value filters against the file's value stats; columns are matched by field id, since the file
   *  may have been written under an older schema. */
  private def fileMightMatch(f: DataFileMeta, filters: Seq[Predicate], fileSchema: TableSchema): Boolean =
    ValueStatistics.decode(f, fileSchema) match {
      case None => true
      case Some((statsFields, mins, maxs)) =>
        val types = statsFields.map(_.dataType)
        val lookup: String => Option[PredicateEval.ColumnStats] = name => {
          schema.field(name).flatMap { current =>
            val i = statsFields.indexWhere(_.id == current.id)
            if (i < 0 || statsFields(i).dataType.withNullable(true) != current.dataType.withNullable(true)) None
            else {
              val st = SparkTypes.toSpark(types(i))
              Some(PredicateEval.ColumnStats(
                  if (mins.isNullAt(i)) null else mins.get(i, st),
                  if (maxs.isNullAt(i)) null else maxs.get(i, st),
                  f.valueStats.nullCounts.lift(i).flatten, f.rowCount, st))
            }
          }
        }
        filters.forall(flt => PredicateEval.mightMatch(flt, lookup))
    }

  private def statsMightMatch(filters: Seq[Predicate], stats: SimpleStats, names: Seq[String], arity: Int,
      rowCount: Option[Long]): Boolean = {
    try {
      val mins = BinaryRowCodec.deserialize(stats.minValues, schema.partitionTypes)
      val maxs = BinaryRowCodec.deserialize(stats.maxValues, schema.partitionTypes)
      val lookup: String => Option[PredicateEval.ColumnStats] = name => {
        val i = names.indexOf(name)
        if (i < 0 || i >= arity) None
        else {
          val st = partitionSparkTypes(i)
          Some(PredicateEval.ColumnStats(
              if (mins.isNullAt(i)) null else mins.get(i, st),
              if (maxs.isNullAt(i)) null else maxs.get(i, st),
              None, rowCount.getOrElse(Long.MaxValue), st))
        }
      }
      filters.forall(f => PredicateEval.mightMatch(f, lookup))
    } catch { case _: Exception => true }
  }
}

object FileStoreScan {

  /** A scan's splits and the numbers of files its filters skipped by their statistics and by their indexes. */
  final case class Planned(splits: Seq[DataSplit], skippedByStatistics: Int, skippedByIndex: Int = 0)
}
