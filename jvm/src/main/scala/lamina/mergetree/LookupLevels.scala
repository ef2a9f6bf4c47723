package lamina.mergetree

import java.io.File
import java.nio.ByteBuffer

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.unsafe.Platform

import lamina.dv.DeletionVectorsMaintainer
import lamina.errors.{BadInputException, CorruptFileException}
import lamina.lookup.{LocalFileCache, LocalFileType, LookupStoreWriter, UnsignedBytesComparator}
import lamina.lookup.cache.CacheCounters
import lamina.table.manifest.DataFileMeta
import lamina.types.SparkTypes

/** The levels of one bucket that a lookup compaction does not rewrite, looked up by key: for a key,
 *  the newest live row of it (a row whose position its file's deletion vector does not delete), its
 *  file and position. Each file is looked up through a local lookup file (Lamina's lookup store,
 *  `lookup.local-file-type`) built from the data file on first use and kept by the JVM's
 *  [[LocalFileCache]] for the next compaction on this executor.
 *
 *  A local file maps the key's bytes ([[LookupKeyEncoding]]) to the row's position,
 *  and, `withValue`, to its sequence number, kind and value (an UnsafeRow of the table's columns):
 *  {{{
 *  entry value := position:int64 BE [ sequence:int64 BE | kind:int8 | value row bytes ]
 *  }}}
 *  `runs` newest first (as [[Levels.runs]] lists them), none of level 0. The pages the lookups found in
 *  the lookup cache or read from local files go into `cacheCounts`. Not thread-safe: one per task. */
final class LookupLevels(
    readers: KeyValueReaders,
    bucketPath: String,
    runs: Seq[SortedRun],
    vectors: DeletionVectorsMaintainer,
    withValue: Boolean,
    localDir: File,
    cacheCounts: CacheCounters) {
  require(runs.forall(_.level > 0), "lookup levels hold no level-0 run")

  private val table = readers.table
  private val layout = table.layout
  private val keyTypes = layout.keyFields.map(f => SparkTypes.toSpark(f.dataType))
  private val valueTypes = table.schema.fields.map(f => SparkTypes.toSpark(f.dataType))
  private val keyBytes = new LookupKeyEncoding(keyTypes)
  private val valueBytes = UnsafeProjection.create(valueTypes.toArray)
  private val order = FileKeyOrder.of(layout)
  private val lookupOptions = table.lookupStore
  private val maxDisk = table.lookupMaxDiskSize
  private val retention = table.lookupFileRetentionMillis

  /** Each run's files with their key ranges, for a binary search. */
  private val ranges: Seq[IndexedSeq[(DataFileMeta, InternalRow, InternalRow)]] =
    runs.map(_.files.map(f => (f, order.minKey(f), order.maxKey(f))))

  private val acquired = mutable.LinkedHashMap.empty[String, LocalFileCache.Entry]
  private var lookups = 0L

  /** The newest live row of `key` in these levels, marked deleted in its file's vector (the
   *  compaction writes the key's merged row instead); its record when `withValue`, else a record
   *  with no value. None when no file holds a live row of the key. */
  def lookupAndDelete(key: InternalRow): Option[KeyValue] = {
    val k = keyBytes.encode(key)
    lookups += 1
    ranges.iterator.flatMap(fileOf(_, key)).flatMap(f => lookupIn(f, k, key).map(f -> _))
      .find { case (f, (position, _)) => !vectors.isDeleted(f.fileName, position) }
      .map { case (f, (position, kv)) =>
        vectors.delete(f.fileName, position)
        kv
      }
  }

  /** Takes the local file of `f` if this JVM has it built already (held until [[close]]); false when
   *  it has not: reads, whose readers may leave columns or pages out, never build one. */
  def holdBuilt(f: DataFileMeta): Boolean =
    acquired.contains(f.fileName) || LocalFileCache.acquireBuilt(idOf(f)).exists { e =>
      acquired(f.fileName) = e
      true
    }

  /** Takes the local file of `f`, building it from `f` if this JVM has none (held until [[close]]). */
  def hold(f: DataFileMeta): Boolean = { entryOf(f); true }

  /** The record of `key` in `f`, whose local file holding values [[holdBuilt]] or [[hold]] took, whether or not a
   *  vector deletes it: for reads of tables without deletion vectors. None when `f` holds no row of the
   *  key. */
  def recordIn(f: DataFileMeta, key: InternalRow): Option[KeyValue] = {
    require(withValue && acquired.contains(f.fileName), s"no local file with values held for ${f.fileName}")
    lookups += 1
    lookupIn(f, keyBytes.encode(key), key).map(_._2)
  }

  /** The position and record of `key` in `f`, through its local file. A local file found damaged is
   *  built again from `f` and asked again ([[LocalFileCache.readRebuilding]]); damaged again, the
   *  compaction fails naming it. */
  private def lookupIn(f: DataFileMeta, k: Array[Byte], key: InternalRow): Option[(Long, KeyValue)] = {
    LocalFileCache.readRebuilding(entryOf(f), acquired(f.fileName) = _)(e =>
      Option(e.reader.lookup(k, cacheCounts)).map(decode(f, e.file, key, _)))
  }

  /** Lookups made, and local files used (built or reused) by this task. */
  def lookupCount: Long = lookups
  def filesUsed: Int = acquired.size

  /** Gives the local files back to the JVM's cache. */
  def close(): Unit = {
    acquired.values.foreach(LocalFileCache.release(_, maxDisk))
    acquired.clear()
  }

  /** The row's bytes in an array of their own (a projection reuses its buffer, which `getBytes` may return). */
  private def bytesOf(row: UnsafeRow): Array[Byte] = row.copy().getBytes

  private def fileOf(run: IndexedSeq[(DataFileMeta, InternalRow, InternalRow)], key: InternalRow): Option[DataFileMeta] = {
    val ord = order.ordering
    var lo = 0
    var hi = run.size - 1
    while (lo <= hi) {
      val mid = (lo + hi) >>> 1
      val (f, min, max) = run(mid)
      if (ord.lt(key, min)) hi = mid - 1
      else if (ord.gt(key, max)) lo = mid + 1
      else return Some(f)
    }
    None
  }

  private def decode(f: DataFileMeta, local: File, key: InternalRow, v: Array[Byte]): (Long, KeyValue) = {
    val expected = if (withValue) 17 else 8
    def corrupt(what: String, found: String) =
      new CorruptFileException(local.getPath, -1, what, found, s"the lookup file of $bucketPath/${f.fileName}")
    if (v.length < expected) throw corrupt(s"a value of $expected bytes or more", s"${v.length} bytes")
    val b = ByteBuffer.wrap(v)
    val position = b.getLong(0)
    if (position < 0 || position >= f.rowCount) throw corrupt(s"a row position below ${f.rowCount}", position.toString)
    if (!withValue) (position, new KeyValue(key.copy(), 0L, RowKind.Insert, null))
    else {
      val row = new UnsafeRow(valueTypes.size)
      row.pointTo(v, Platform.BYTE_ARRAY_OFFSET + 17, v.length - 17)
      (position, new KeyValue(key.copy(), b.getLong(8), b.get(16), row))
    }
  }

  /** The cache id of `f`'s local file: the table, bucket and file, what the file maps keys to (the
   *  values of the current schema, or positions), and the key bytes' version. */
  private def idOf(f: DataFileMeta): String =
    s"${table.path}/${bucketPath.split('/').last}/${f.fileName}#" +
      (if (withValue) s"value-schema-${table.schema.id}" else "position") + s"-key-${LookupLevels.KeyVersion}"

  private def entryOf(f: DataFileMeta): LocalFileCache.Entry =
    acquired.getOrElseUpdate(f.fileName,
      LocalFileCache.acquire(idOf(f), localDir, lookupOptions, f.rowCount, retention)(w => build(f, w)))

  /** Writes the local file of `f`: every row's key and position (and record), in the key order of
   *  the lookup file's type. */
  private def build(f: DataFileMeta, w: LookupStoreWriter): Unit = {
    val entries = Iterator.from(0).zip(readers.readFile(bucketPath, f)).map { case (position, kv) =>
      val k = keyBytes.encode(kv.key)
      val head = ByteBuffer.allocate(if (withValue) 17 else 8).putLong(position.toLong)
      val v =
        if (!withValue) head.array()
        else {
          head.putLong(kv.sequenceNumber).put(kv.valueKind)
          val row = bytesOf(valueBytes(kv.value))
          val out = new Array[Byte](17 + row.length)
          System.arraycopy(head.array(), 0, out, 0, 17)
          System.arraycopy(row, 0, out, 17, row.length)
          out
        }
      (k, v)
    }
    lookupOptions.localFileType match {
      case LocalFileType.Sort if keyBytes.orderPreserving =>
        // the file's rows lie in key order, which the encoding keeps; the writer refuses a key out of order
        entries.foreach { case (k, v) =>
          try w.put(k, v)
          catch {
            case e: BadInputException =>
              throw new CorruptFileException(s"${table.path}/$bucketPath/${f.fileName}", -1,
                "rows in strictly ascending key order", e.getMessage, "data file row order", e)
          }
        }
      case LocalFileType.Hash => entries.foreach { case (k, v) => w.put(k, v) }
      case LocalFileType.Sort =>
        // a sort file takes its keys in byte order, which is not the table's key order here
        val all = entries.toArray
        java.util.Arrays.sort(all,
          (a: (Array[Byte], Array[Byte]), b: (Array[Byte], Array[Byte])) =>
            UnsignedBytesComparator.compare(a._1, b._1))
        all.foreach { case (k, v) => w.put(k, v) }
    }
  }
}

object LookupLevels {

  /** Version of the key bytes of local files ([[LookupKeyEncoding]]), part of a file's cache id. */
  private val KeyVersion = 2
}
