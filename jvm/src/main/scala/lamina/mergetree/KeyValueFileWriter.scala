package lamina.mergetree

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}

import lamina.errors.BadInputException
import lamina.format.{BinaryRowCodec, DataFileDir, DataFileRoll, KeyValueRow, StatsCollector, StatsMode, ValueStats}
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.types.SparkTypes

/** Writes the records of one (partition, bucket) of a primary-key table into level-0 data files in
 *  the key-value layout, assigning sequence numbers from `firstSequence` on. A file is rolled over
 *  at the target size, and also when a key arrives that is not above the previous one, so that every
 *  file holds strictly increasing keys. Invariant: each closed file has its [[DataFileMeta]] with
 *  min/max key, key and value statistics, sequence range and delete count. With `uniqueKeys`, a
 *  key that repeats the previous record's key is refused (a write that must hold each key once,
 *  whose rows arrive sorted by key). With `changelog` the files are `changelog` files (the same
 *  layout) instead of `data` files of the merge tree: they hold what a write or compaction changed, for
 *  streaming readers, and a key's records (-U then +U) share a file. */
final class KeyValueFileWriter private[mergetree] (
    files: KeyValueFileContext,
    val partition: Array[Byte],
    dir: DataFileDir,
    val bucket: Int,
    firstSequence: Long,
    taskId: Int,
    level: Int,
    fileSource: Int,
    uniqueKeys: Boolean,
    changelog: Boolean,
    dataPrefix: String) {

  private val layout = files.layout
  // changelog files take file.format whatever their level, as Paimon's do
  private val writers = if (changelog) files.writers else files.writers.forLevel(level)
  private val types = layout.schema.fields.map(_.dataType)
  private val keyTypes = layout.keyFields.map(_.dataType)
  private val keySparkTypes = keyTypes.map(SparkTypes.toSpark)
  private val keyOrdering = KeyOrder.orderingOf(keySparkTypes)
  // two projections used in turn: the previous record's key stays valid without a copy per record
  private def newKeyProjection() = UnsafeProjection.create(layout.keyOrdinals.toSeq.zip(keySparkTypes).map {
    case (o, t) => BoundReference(o, t, nullable = false)
  })
  private val keyProjections = Array(newKeyProjection(), newKeyProjection())
  private var flip = 0
  private val valueStatsOf =
    new ValueStats(StatsMode.parse(files.statsMode), layout.schema.fields, writers)

  /** A key compared with the previous one at or below this starts a new file: 0 for data files (keys
   *  strictly ascend), -1 for changelog files (keys never descend, and repeat within a key's records). */
  private val rollAtOrBelow = if (changelog) -1 else 0
  private val roll = new DataFileRoll(files.fileIO, dir, writers, taskId,
    if (changelog) KeyValueFileWriter.ChangelogPrefix else dataPrefix, valueStatsOf,
    files.targetFileSize, types.size, if (changelog) None else files.fileIndex)
  private val done = ArrayBuffer.empty[DataFileMeta]
  private val record = new KeyValueRow(layout.keyArity, writers.fileSchema)

  private var nextSequence = firstSequence
  private var rows = 0L
  private var deletes = 0L
  private var minSeq = 0L
  private var minKey: InternalRow = _
  private var lastKey: InternalRow = _
  private var keyStats: StatsCollector = _

  /** A file's keys ascend, so a single key column's bounds are its first and last key: no stats
   *  update per record. */
  private val sortedKeyStats = keyTypes.size == 1
  private var keyBounds: StatsCollector = _

  /** The key of the previous record, across file boundaries (for `uniqueKeys`). */
  private var previousKey: InternalRow = _

  private def repeatedKey(key: InternalRow): BadInputException = {
    val shown = layout.keyFields.indices.map { i =>
      s"${layout.keyFields(i).name}=${key.get(i, keySparkTypes(i))}"
    }.mkString(", ")
    new BadInputException(
      s"Table ${files.tableName}: more than one written row has primary key ($shown). A MERGE INTO that upserts its " +
        "source writes each key once, as MERGE matches a target row with at most one source row; remove the " +
        "duplicates from the source")
  }

  /** The sequence number the next record would get. */
  def sequence: Long = nextSequence

  /** Takes the next sequence number for a record written later with it ([[write]] with `sequence`). */
  def reserveSequence(): Long = { val s = nextSequence; nextSequence += 1; s }

  def write(row: InternalRow, kind: Byte): Unit = write(row, kind, -1L)

  /** Writes one record; `sequence` >= 0 keeps a given sequence number (compaction rewrites). */
  def write(row: InternalRow, kind: Byte, sequence: Long): Unit = {
    flip ^= 1
    val key = keyProjections(flip)(row)
    // a data file holds each key once, in ascending order (Paimon's readers rely on it): a repeated or
    // smaller key starts the next file; a changelog file holds a key's records together (-U then +U)
    if (uniqueKeys) {
      if (previousKey != null && keyOrdering.compare(key, previousKey) == 0) throw repeatedKey(key)
      previousKey = key
    }
    if (roll.isOpen && lastKey != null && keyOrdering.compare(key, lastKey) <= rollAtOrBelow) closeFile()
    if (!roll.isOpen) openFile(key)
    val seq = if (sequence >= 0) { noteSequence(sequence); sequence }
    else { val s = nextSequence; nextSequence += 1; s }
    val full = roll.write(record.set(key, seq, kind, row), row)
    if (!sortedKeyStats) keyStats.update(row)
    rows += 1
    if (RowKind.isRetract(kind)) deletes += 1
    lastKey = key
    if (full) closeFile()
  }

  def finish(): Seq[DataFileMeta] = { closeFile(); done.toSeq }

  def abort(): Unit = {
    roll.abort()
    done.clear()
  }

  private def openFile(key: InternalRow): Unit = {
    roll.open()
    rows = 0; deletes = 0
    minSeq = nextSequence
    minKey = key.copy()
    keyStats = new StatsCollector(keyTypes, layout.keyOrdinals, Seq.fill(keyTypes.size)(StatsMode.Full))
    keyBounds = new StatsCollector(keyTypes, Array.range(0, keyTypes.size), Seq.fill(keyTypes.size)(StatsMode.Full))
  }

  private def keyStatsResult() =
    if (!sortedKeyStats) keyStats.resultSerialized()
    else {
      keyBounds.update(minKey)
      keyBounds.update(lastKey)
      keyBounds.resultSerialized()
    }

  private def closeFile(): Unit = {
    if (!roll.isOpen) return
    val f = roll.close()
    val (lo, hi) = seqRange()
    done += DataFileMeta(
      fileName = f.fileName,
      fileSize = f.fileSize,
      rowCount = rows,
      minKey = BinaryRowCodec.serialize(minKey, keyTypes),
      maxKey = BinaryRowCodec.serialize(lastKey, keyTypes),
      keyStats = SimpleStats.from(keyStatsResult()),
      valueStats = f.valueStats,
      minSequenceNumber = lo,
      maxSequenceNumber = hi,
      schemaId = layout.schema.id,
      level = level,
      creationTimeMillis = Some(System.currentTimeMillis()),
      deleteRowCount = Some(deletes),
      fileSource = Some(fileSource),
      valueStatsCols = f.valueStatsCols,
      embeddedIndex = f.embeddedIndex,
      extraFiles = f.extraFiles,
      externalPath = f.externalPath)
    lastKey = null
  }

  // sequence numbers given explicitly (compaction) are tracked per file
  private var seqLo = Long.MaxValue
  private var seqHi = Long.MinValue
  private def seqRange(): (Long, Long) = {
    val r = if (seqLo == Long.MaxValue) (minSeq, nextSequence - 1) else (seqLo, seqHi)
    seqLo = Long.MaxValue; seqHi = Long.MinValue
    r
  }
  def noteSequence(s: Long): Unit = { seqLo = math.min(seqLo, s); seqHi = math.max(seqHi, s) }
}

object KeyValueFileWriter {
  val DataPrefix = "data"
  val ChangelogPrefix = "changelog"
}
