package lamina.table.sink

import scala.collection.immutable.ArraySeq
import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import lamina.errors.BadInputException
import lamina.format.{BinaryRowCodec, DataFileWriters}
import lamina.mergetree.{KeyValueFileWriter, RowKind}
import lamina.mergetree.function.MergeFunctions
import lamina.table.{FileStorePaths, FileStoreTable}
import lamina.table.bucket.{CrossPartitionAssigner, DynamicBucketAssigner, DynamicBucketPlan, KeyPlacement, PartitionBuckets}
import lamina.table.commit.CommitMessage
import lamina.table.options.{ChangelogProducer, CoreOptions}
import lamina.table.scan.SequenceBases

/** The writes of one task to a primary-key table: each record goes, with its row kind, to the
 *  [[KeyValueFileWriter]] of its (partition, bucket). `sequenceBases` holds, per serialized partition
 *  and bucket, a number at least the highest sequence number committed there ([[SequenceBases]]).
 *  `uniqueKeys`: a key written twice fails the task; otherwise a key's repeated records are merged
 *  before they reach a file ([[RepeatedKeyMerge]]). With `changelog-producer` = input every record
 *  also goes, with the same sequence number, to a changelog file of its bucket (Paimon's input
 *  producer). A dynamic-bucket table's keys get their buckets from the `dynamic` plan's assigner, which
 *  also writes the hash index of every bucket given new keys. A cross-partition upsert table's keys are
 *  placed by the task's `keyIndex` ([[CrossPartitionAssigner]]), which may add a -D record of the key
 *  in its old partition or send the record there; the records arrive sorted by key, so each
 *  (partition, bucket) still gets its keys in order. Invariant: every file written is
 *  either in the commit messages of [[prepareCommit]] or removed by [[abort]]. `buckets`: the bucket
 *  counts of partitions ([[WriteBuckets]]). */
final class KeyValueTableWrite(table: FileStoreTable, writers: DataFileWriters,
    sequenceBases: Map[SequenceBases.Key, Long], taskId: Int, uniqueKeys: Boolean,
    dynamic: Option[DynamicBucketPlan] = None, buckets: WriteBuckets = WriteBuckets(),
    keyIndex: Option[CrossPartitionAssigner] = None) {

  private val schema = table.schema
  require(keyIndex.isDefined == table.hasCrossPartitionUpsert,
    s"a write into table ${table.name} places keys across partitions exactly when the table is a cross-partition upsert")
  private val routing = new RowRouting(table, buckets)
  private val numBuckets = routing.numBuckets
  private var cachedCount = numBuckets
  private val pkOrdinals: Array[Int] = schema.primaryKeys.map(schema.indexOf).toArray
  private val files = table.keyValueFiles(writers)
  private val open = mutable.LinkedHashMap.empty[(UnsafeRow, Int), KeyValueFileWriter]
  private val changelogs = mutable.HashMap.empty[KeyValueFileWriter, KeyValueFileWriter]
  private val counts = mutable.HashMap.empty[KeyValueFileWriter, Int]

  /** Per writer, the merge of a key's repeated records, where keys may repeat ([[RepeatedKeyMerge]]). */
  private val merges = mutable.HashMap.empty[KeyValueFileWriter, RepeatedKeyMerge]
  private lazy val newMergeFunction =
    MergeFunctions.create(schema.fields, schema.primaryKeys, table.options, table.name)
  private val inputChangelog =
    CoreOptions.ChangelogProducer.getOrDefault(table.options) == ChangelogProducer.Input
  private var cachedPartition: UnsafeRow = _
  private var cachedWriters: Array[KeyValueFileWriter] = _

  private val assigner = dynamic.map(new DynamicBucketAssigner(table, _))

  /** The names of this task's files in bucket-postpone start as Paimon's do, with a writer id (the
   *  task) that its compaction reads each writer's files in order by: `data--u-<user>-s-<id>-w` (Paimon
   *  puts its `-u-...` after the prefix `data-`). */
  private lazy val postponePrefix = s"${KeyValueFileWriter.DataPrefix}--u-${FileStorePaths.newUuid()}-s-$taskId-w"
  private val keyHash = assigner.orElse(keyIndex).map(_ => routing.keyHash)
  private val trimmedKeyOrdinals = schema.trimmedPrimaryKeys.map(schema.indexOf).toArray
  private lazy val overlay = new PartitionOverlay(schema)
  private var cachedPartitionBytes: Array[Byte] = _
  private var cachedGroups: Array[PartitionBuckets] = _

  /** Writes one record of `kind`; `checkNulls` passes it through the NOT NULL and CHAR/VARCHAR rules
   *  first (a delete's non-key columns are not checked). A null primary key is always refused. */
  def write(input: InternalRow, kind: Byte, checkNulls: Boolean = true): Unit = {
    val row = if (checkNulls) routing.checked(input) else input
    var k = 0 // a loop over an int array: this runs per record
    while (k < pkOrdinals.length) {
      val i = pkOrdinals(k)
      if (row.isNullAt(i))
        throw new BadInputException(
          s"Primary-key column '${schema.fields(i).name}' of table ${table.name} is null in a written row")
      k += 1
    }
    val partition = routing.partition(row)
    keyIndex match {
      case Some(index) => return place(index, row, kind, partition)
      case None =>
    }
    // the writers of the last partition seen, by bucket: no map lookup per row
    if (cachedPartition == null || !cachedPartition.equals(partition)) {
      cachedPartition = partition.copy()
      cachedCount = routing.bucketsOf(cachedPartition)
      cachedWriters = new Array[KeyValueFileWriter](math.max(cachedCount, 1))
      assigner.foreach { a =>
        cachedPartitionBytes = BinaryRowCodec.serialize(cachedPartition, schema.partitionTypes)
        cachedGroups = a.groupsOf(cachedPartitionBytes)
      }
    }
    val bucket = assigner match {
      case None => routing.bucket(row, cachedPartition)
      case Some(a) => a.assign(cachedPartitionBytes, cachedGroups, keyHash.get(row))
    }
    val slot = math.max(bucket, 0) // bucket-postpone is a partition's only bucket
    if (slot >= cachedWriters.length)
      cachedWriters = java.util.Arrays.copyOf(cachedWriters, math.max(slot + 1, cachedWriters.length * 2))
    var w = cachedWriters(slot)
    if (w == null) {
      w = writerOf(partition, bucket)
      cachedWriters(slot) = w
    }
    writeTo(w, row, kind)
  }

  private def writeTo(w: KeyValueFileWriter, row: InternalRow, kind: Byte): Unit =
    if (uniqueKeys) {
      if (inputChangelog) changelogs(w).write(row, kind, w.sequence)
      w.write(row, kind)
    } else {
      val sequence = w.reserveSequence()
      if (inputChangelog) changelogs(w).write(row, kind, sequence)
      merges(w).write(row, kind, sequence)
    }

  /** A record of a cross-partition upsert table, placed by the key index. */
  private def place(index: CrossPartitionAssigner, row: InternalRow, kind: Byte, partition: UnsafeRow): Unit = {
    val partitionBytes = BinaryRowCodec.serialize(partition, schema.partitionTypes)
    def into(r: InternalRow, k: Byte, bucket: Int): Unit = writeTo(writerOf(routing.partition(r), bucket), r, k)
    index.place(index.keyOf(row, trimmedKeyOrdinals), keyHash.get(row), partitionBytes) match {
      case KeyPlacement.Here(bucket) => into(row, kind, bucket)
      case KeyPlacement.Moved(oldPartition, oldBucket, bucket) =>
        into(overlay(row, oldPartition), RowKind.Delete, oldBucket)
        into(row, kind, bucket)
      case KeyPlacement.IntoOld(oldPartition, oldBucket) => into(overlay(row, oldPartition), kind, oldBucket)
      case KeyPlacement.Dropped =>
    }
  }

  private def writerOf(partition: UnsafeRow, bucket: Int): KeyValueFileWriter =
    open.get((partition, bucket)) match {
      case Some(w) => w
      case None =>
        val key = partition.copy()
        val bytes = BinaryRowCodec.serialize(key, schema.partitionTypes)
        val postpone = bucket == FileStorePaths.PostponeBucket
        // bucket-postpone's files are read one by one, not merged: Paimon numbers each writer's from 0
        val base = if (postpone) -1L else sequenceBases.getOrElse((ArraySeq.unsafeWrapArray(bytes), bucket), -1L)
        val dir = table.paths.newFilesDir(key, bucket)
        val w = files.writer(bytes, dir, bucket, base + 1, taskId, uniqueKeys = uniqueKeys,
          dataPrefix = if (postpone) postponePrefix else KeyValueFileWriter.DataPrefix)
        open.put((key, bucket), w)
        counts.put(w, cachedCount)
        if (!uniqueKeys) merges.put(w, new RepeatedKeyMerge(table, w, newMergeFunction()))
        if (inputChangelog)
          changelogs.put(w,
            files.writer(bytes, dir, bucket, base + 1, taskId, changelog = true))
        w
    }

  /** Closes every file and returns one message per (partition, bucket) that has files or a new hash
   *  index. */
  def prepareCommit(): Seq[CommitMessage] = {
    merges.values.foreach(_.flush())
    val written = open.values.toSeq.map { w =>
      CommitMessage(w.partition, w.bucket, counts.getOrElse(w, numBuckets), w.finish(),
        changelogFiles = changelogs.get(w).map(_.finish()).getOrElse(Seq.empty))
    }
    val hashes = assigner.map(_.changes()).getOrElse(Seq.empty)
      .map { case (p, b, c) => (ArraySeq.unsafeWrapArray(p), b) -> c }.toMap
    val withIndex = written.map(m => m.copy(hashIndex = hashes.get((ArraySeq.unsafeWrapArray(m.partition), m.bucket))))
    val alone = hashes.keySet -- written.map(m => (ArraySeq.unsafeWrapArray(m.partition), m.bucket))
    val msgs = (withIndex ++ alone.toSeq.map { case (p, b) =>
      CommitMessage(p.toArray, b, numBuckets, Seq.empty, hashIndex = hashes.get((p, b)))
    }).filter(m => m.newFiles.nonEmpty || m.hashIndex.isDefined)
    open.clear()
    changelogs.clear()
    merges.clear()
    counts.clear()
    cachedPartition = null
    keyIndex.foreach(_.close())
    msgs
  }

  /** Removes every file written. */
  def abort(): Unit = {
    keyIndex.foreach(_.close())
    open.values.foreach(_.abort())
    changelogs.values.foreach(_.abort())
    open.clear()
    changelogs.clear()
    merges.clear()
    counts.clear()
    cachedPartition = null
  }

  def isEmpty: Boolean = open.isEmpty
}
