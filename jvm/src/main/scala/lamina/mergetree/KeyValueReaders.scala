package lamina.mergetree

import java.io.File

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{StructField, StructType}

import lamina.dv.{DeletionFile, DeletionVectorFilter}
import lamina.format.{DataFileRef, FileSchemaReader, NullPaddedRow}
import lamina.lookup.cache.CacheCounters
import lamina.table.KeyValueLayout
import lamina.table.manifest.DataFileMeta
import lamina.types.SparkTypes

/** Reading the data files of a primary-key table as [[KeyValue]] records in the current schema,
 *  and merging the sorted runs of a split into rows with a fresh merge function of `mergeFunctions`
 *  (the table's factory, built and checked once). `table` is the merge tree's view of the table
 *  ([[MergeTreeTable]]). Serializable: built on the driver, used in
 *  executors (and by compaction). With a `keyRange` (a single integral key), the merges read each
 *  run's records inside the range only ([[KeyRange]]), and with `keys` only the records of those keys
 *  ([[LongKeys]]): for scans, never for compaction. With a `recordExpiry` (compaction only), the
 *  merges leave out expired records ([[RecordExpiry]]). */
final case class KeyValueReaders(
    readers: Map[Long, FileSchemaReader],
    batchReaders: Map[Long, FileSchemaReader],
    table: MergeTreeTable,
    mergeFunctions: MergeFunctionFactory,
    batchReadersWithoutSequence: Map[Long, FileSchemaReader] = Map.empty,
    keyRange: Option[KeyRange] = None,
    keys: Option[LongKeys] = None,
    recordExpiry: Option[RecordExpiry] = None,
    lookups: Option[KeyLookups] = None)
  extends Serializable {

  /** These readers, reading only the records of `chosen` (a single integral key only). */
  def onlyKeys(chosen: LongKeys): KeyValueReaders = if (longKey.isEmpty) this else copy(keys = Some(chosen))

  /** These readers, reading only the records of their chosen keys, taking for each sorted run the
   *  lookup path where its rule says so ([[KeyLookupRun]]: a key per `rowsPerKey` rows at most), through
   *  the local lookup files of `dir`. */
  def withLookups(dir: File, rowsPerKey: Int, builders: Option[KeyValueReaders] = None): KeyValueReaders =
    if (rowsPerKey <= 0) this else copy(lookups = Some(KeyLookups(dir, rowsPerKey, builders)))

  /** The long form of a single integral key, if the key is one (without compiling the key's ordering). */
  def longKey: Option[KeyOrder.LongKey] = KeyValueReaders.longKeyOf(layout)

  private def layout = table.layout

  private def keySchema(l: KeyValueLayout) =
    StructType(l.keyFields.map(x => StructField(x.name, SparkTypes.toSpark(x.dataType))))

  private def valueSchema = SparkTypes.toSparkStruct(table.schema.fields)

  /** For each table column, its position in the key-value layout: a column of the (trimmed) primary
   *  key is read from its key column, the others from the value columns. */
  private def valueFromLayout(l: KeyValueLayout): Array[Int] = table.schema.fields.indices.map { i =>
    val k = l.keyOrdinals.indexOf(i)
    if (k >= 0) k else l.valueOffset + i
  }.toArray

  /** Key order of the merge: Spark's compiled comparison, or a long for a single integral key
   *  (the merge compares keys for every record). */
  def keyOrder: KeyOrder = KeyValueReaders.keyOrderOf(layout)

  /** The records of one file, in file order (key, then sequence number). Each record's key and
   *  value are views over the reader's current row, valid until the file's iterator advances: the
   *  merge hands a run's head to the merge function (which copies what it keeps) before advancing
   *  it, so a column is only decoded when a merge function or the consumer asks for it. */
  def readFile(bucketPath: String, f: DataFileMeta, deletionFiles: Map[String, DeletionFile] = Map.empty): Iterator[KeyValue] = {
    val l = layout
    val r = readers(f.schemaId)
    val proj = r.projection()
    // views over the record's row: valid until this file's iterator advances
    val keyView = new NullPaddedRow(keySchema(l), Array.range(0, l.keyArity))
    val valueView = new NullPaddedRow(valueSchema, valueFromLayout(l))
    val rows = DeletionVectorFilter(table.fileIO)(deletionFiles, f.fileName, f.rowCount,
      r.open(bucketPath, KeyValueReaders.refOf(f), table.name))
    val kv = new KeyValue(null, 0L, 0, null)
    rows.map { raw =>
      val row = proj(raw)
      keyView.project(row)
      valueView.project(row)
      kv.replace(keyView, row.getLong(l.sequenceOrdinal), row.getByte(l.kindOrdinal), valueView)
    }
  }

  /** The sorted runs of a split ([[Levels]]), oldest first: the order the merge takes them in. */
  def runs(split: BucketFiles, skipLevel0: Boolean): Seq[Seq[DataFileMeta]] =
    KeyValueReaders.levels(table, split, skipLevel0).runsOldestFirst.map(_.files)

  /** A run's records: from columnar batches when every file of the run can be read so, else row by row.
   *  With `runSequence`, the run's batches leave the sequence number column unread and every record
   *  takes that number (see [[KeyValueReaders.runSequences]]). The kind column is always read: a
   *  file's `_DELETE_ROW_COUNT` cannot vouch for it (pypaimon 2.1 records 0 for files with deletes). */
  private def cursor(split: BucketFiles, run: Seq[DataFileMeta], order: KeyOrder,
      runSequence: Option[Long] = None): RunCursor = {
    val bucketPath = split.bucketPath
    val range = keyRange.filter(_ => order.asLong.isDefined)
    val chosen = keys.filter(_ => order.asLong.isDefined)
    // batches carry no row positions: a file with a deletion vector is read row by row
    // a compaction that expires records filters them row by row
    if (recordExpiry.isEmpty && run.forall(f => batchReaders.contains(f.schemaId) && !split.deletionFiles.contains(f.fileName))) {
      val l = layout
      val files = run.iterator.map { f => () =>
        val r = runSequence.flatMap(_ => batchReadersWithoutSequence.get(f.schemaId)).getOrElse(batchReaders(f.schemaId))
        FileBatches(r.openBatches(bucketPath, KeyValueReaders.refOf(f), table.name), r.outputFromFile, runSequence.getOrElse(-1L))
      }
      new KeyValueBatchCursor(files, l.keyArity, keySchema(l), valueSchema, valueFromLayout(l), order.asLong, range, chosen)
    } else {
      val key = (kv: KeyValue) => order.asLong.get(kv.key)
      val read = run.iterator.flatMap(f => readFile(bucketPath, f, split.deletionFiles))
      val records = recordExpiry.fold(read)(e => read.filter(kv => e.keeps(kv.value)))
      val inRange = range.fold(records)(r => KeyRange.within(records, r, key))
      RunCursor.of(chosen.fold(inRange)(_.within(inRange, key)), order)
    }
  }

  /** `run` read by looking up the chosen keys, where the lookup path's rule takes it. Its records carry
   *  their own sequence numbers, which order them against the other runs' stand-ins as those do: runs
   *  get stand-ins only when their ranges of sequence numbers are disjoint. */
  private def lookedUp(split: BucketFiles, run: SortedRun): Option[RunCursor] =
    for {
      l <- lookups
      chosen <- keys
      if recordExpiry.isEmpty
      found <- KeyLookupRun.of(this, split.bucketPath, run, chosen, l, new CacheCounters)
    } yield found

  /** Whether every file of these schemas is read as columnar batches. */
  def allBatched(schemaIds: Seq[Long]): Boolean = schemaIds.forall(batchReaders.contains)

  /** The merge of a split whose runs are all read as batches (or looked up, [[KeyLookupRun]]), and the
   *  runs' cursors (index = run), for a reader that takes whole blocks
   *  ([[SortMergeReader.MergeIterator.blockRun]]: only batch cursors have blocks). */
  def mergedBlocks(split: BucketFiles, skipLevel0: Boolean): (IndexedSeq[RunCursor], SortMergeReader.MergeIterator) = {
    val (cursors, merge) = mergeOf(split, skipLevel0, dropDeletes = true, sequencesFromRuns = true)
    cursors.foreach {
      case _: KeyValueBatchCursor | _: KeyLookupRun =>
      case _ => throw new IllegalStateException(s"a run of ${table.name} is not read as batches")
    }
    (cursors, merge)
  }

  /** The merged records of a split: the merge function's results, with or without deletes. */
  def mergedRecords(
      split: BucketFiles, skipLevel0: Boolean, dropDeletes: Boolean, finalKinds: Boolean = false): Iterator[KeyValue] =
    mergeOf(split, skipLevel0, dropDeletes, finalKinds = finalKinds)._2

  /** As [[mergedRecords]] of every level, each key merged by `wrap` of the table's merge function:
   *  compactions that look keys up or produce changelog. */
  def mergedRecordsWith(split: BucketFiles, dropDeletes: Boolean, wrap: MergeFunction => MergeFunction): Iterator[KeyValue] =
    mergeOf(split, skipLevel0 = false, dropDeletes, wrap = wrap)._2

  /** `sequencesFromRuns`: the merge's records may carry a stand-in for their sequence numbers that
   *  orders them as the real ones do (for results that do not show sequence numbers, such as a scan's
   *  rows; a compaction writes the real ones). */
  private def mergeOf(split: BucketFiles, skipLevel0: Boolean, dropDeletes: Boolean, sequencesFromRuns: Boolean = false,
      finalKinds: Boolean = false, wrap: MergeFunction => MergeFunction = identity)
      : (IndexedSeq[RunCursor], SortMergeReader.MergeIterator) = {
    val levelRuns = KeyValueReaders.levels(table, split, skipLevel0).runsOldestFirst
    val mf = wrap(mergeFunctions.create())
    val order = keyOrder
    val sortedRuns = levelRuns.map(_.files)
    val standIns = if (sequencesFromRuns) KeyValueReaders.runSequences(sortedRuns) else None
    val cursors = sortedRuns.indices.map { i =>
      lookedUp(split, levelRuns(i)).getOrElse(cursor(split, sortedRuns(i), order, standIns.map(_(i))))
    }
    // every run has strictly increasing keys: a level-0 run is one file (Paimon's files hold a key
    // once), a higher level is non-overlapping files
    (cursors,
      SortMergeReader.mergeUniqueCursors(cursors, order, mf, dropDelete = dropDeletes, finalKinds = finalKinds,
        runLevels = levelRuns.map(_.level).toArray))
  }
}

object KeyValueReaders {

  /** What a reader needs to know of a data file. */
  def refOf(f: DataFileMeta): DataFileRef = DataFileRef(f.fileName, f.fileSize, f.rowCount, f.externalPath)

  /** One sequence number per sorted run that orders the records of a merge as their own sequence
   *  numbers do, or None when the runs' ranges of sequence numbers overlap.
   *
   *  The merge compares sequence numbers only between records of one key. Two such records in one
   *  run lie in one file (a run's files hold disjoint key ranges), which yields them in its own order
   *  (key, then sequence number); two in different runs are ordered by their runs when every number of
   *  one run is below every number of the other. So when the runs' ranges [min, max] are pairwise
   *  disjoint, each run's maximum stands in for all its records. Pure. */
  def runSequences(runs: Seq[Seq[DataFileMeta]]): Option[IndexedSeq[Long]] =
    if (runs.exists(_.isEmpty)) None
    else {
      val ranges = runs.map(r => (r.map(_.minSequenceNumber).min, r.map(_.maxSequenceNumber).max)).toIndexedSeq
      val byStart = ranges.sortBy(_._1)
      val disjoint = byStart.indices.drop(1).forall(i => byStart(i - 1)._2 < byStart(i)._1)
      if (disjoint) Some(ranges.map(_._2)) else None
    }

  def keyOrderOf(layout: KeyValueLayout): KeyOrder =
    KeyOrder(keyOrderingOf(layout), longKeyOf(layout))

  def longKeyOf(layout: KeyValueLayout): Option[KeyOrder.LongKey] =
    KeyOrder.longKeyOf(layout.keyFields.map(f => SparkTypes.toSpark(f.dataType)))

  def keyOrderingOf(layout: KeyValueLayout): Ordering[InternalRow] =
    KeyOrder.orderingOf(layout.keyFields.map(f => SparkTypes.toSpark(f.dataType)))

  /** Whether a split is one sorted run without deletes, readable without merging: files above level 0
   *  hold merge results. A level-0 file holds records as written, deletes among them, and only its
   *  writer vouches for its `_DELETE_ROW_COUNT` (pypaimon 2.1 records 0 whatever the file holds), so
   *  level 0 is always merged, as Paimon's own readers do. With deletion vectors a key lives in one
   *  file above level 0 only (the vectors delete its older versions), so any number of runs reads
   *  directly, each file through its vector (Paimon's raw-convertible splits). */
  def readableDirectly(table: MergeTreeTable, split: BucketFiles): Boolean = {
    val skip0 = table.capabilities.skipsLevel0
    val files = if (skip0) split.files.filter(_.level > 0) else split.files
    files.forall(f => f.level > 0 && f.deleteRowCount.contains(0L)) &&
    (table.capabilities.deletionVectors || levels(table, split, skip0).runs.size <= 1)
  }

  /** The split's files as [[Levels]]; without level 0 when `skipLevel0`. */
  def levels(table: MergeTreeTable, split: BucketFiles, skipLevel0: Boolean): Levels = {
    val all = Levels(split.files, FileKeyOrder.of(table.layout))
    if (skipLevel0) all.withoutLevel0 else all
  }

}
