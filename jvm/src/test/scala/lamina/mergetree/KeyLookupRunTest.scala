package lamina.mergetree

import java.nio.file.Files
import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.DeletionVectorsMaintainer
import lamina.format.{BinaryRowCodec, FileSchemaReader}
import lamina.lookup.cache.CacheCounters
import lamina.mergetree.function.MergeFunctions
import lamina.table.{KeyValueLayout, TestTables}
import lamina.table.manifest.DataFileMeta
import lamina.table.options.TableCapabilities
import lamina.table.schema.TableSchema
import lamina.types.{BigIntType, DataField, VarCharType}

/** The lookup path of a read with chosen keys: a run is looked up only where its files' local lookup
 *  files were built already (by lookup compaction, here by [[LookupLevels]] as it builds them) and the
 *  keys are few against its rows; it then yields exactly its records of the chosen keys. */
class KeyLookupRunTest extends AnyFunSuite {
  private val bucketPath = "/key-lookup-run-test/bucket-0"
  private val dir = Files.createTempDirectory("key-lookup-run").toFile

  /** (key, sequence number, kind, value) records of each file, in file order. */
  private val records: Map[String, Seq[(Long, Long, Byte, String)]] = Map(
    "a" -> Seq((1L, 10L, RowKind.Insert, "a1"), (2L, 11L, RowKind.UpdateAfter, "a2"), (3L, 12L, RowKind.Delete, "a3")),
    "b" -> Seq((5L, 1L, RowKind.Insert, "b5"), (8L, 2L, RowKind.Insert, "b8"), (9L, 3L, RowKind.Insert, "b9"),
      (10L, 4L, RowKind.Insert, "b10")))

  private def key(k: Long) = BinaryRowCodec.serialize(InternalRow(k), Seq(BigIntType(false)))

  private def fileOf(name: String, level: Int): DataFileMeta = {
    val rs = records(name)
    TestTables.file(name, rows = rs.size, level = level)
      .copy(minKey = key(rs.head._1), maxKey = key(rs.last._1), minSequenceNumber = rs.map(_._2).min,
        maxSequenceNumber = rs.map(_._2).max)
  }

  private def readers(options: Map[String, String], tablePath: String): KeyValueReaders = {
    val schema = TableSchema(0L, Seq(DataField(0, "k", BigIntType(false)), DataField(1, "v", VarCharType.string())), 1,
      Nil, Seq("k"), options, None, 0L)
    val layout = KeyValueLayout(schema)
    val reader = FileSchemaReader(
      (path: String, _: Long) =>
        records(path.split('/').last).iterator.map { case (k, seq, kind, v) =>
          InternalRow(k, seq, kind, k, UTF8String.fromString(v))
        },
      layout.fileStruct, layout.fileStruct.fields.indices.toArray, layout.fileStruct)
    val table = MergeTreeTable.of("db.t", tablePath, TestTables.fileIO, layout,
      TableCapabilities.of(options, primaryKey = true, "db.t"), options)
    KeyValueReaders(Map(0L -> reader), Map.empty, table,
      MergeFunctions.factory(schema.fields, schema.primaryKeys, options, "db.t"))
  }

  private val run = SortedRun(2, IndexedSeq(fileOf("a", 2), fileOf("b", 2)))

  /** Builds the local files of `files` as lookup compaction does (with values), then gives them back. */
  private def buildLocalFiles(r: KeyValueReaders, files: Seq[DataFileMeta]): Unit = {
    val l = new LookupLevels(r, bucketPath, Seq(SortedRun(2, files.toIndexedSeq)),
      new DeletionVectorsMaintainer(Map.empty, bitmap64 = false), withValue = true, dir, new CacheCounters)
    try files.foreach(f => l.lookupAndDelete(BinaryRowCodec.deserialize(f.minKey, Seq(BigIntType(false)))))
    finally l.close()
  }

  private def drain(c: RunCursor): Seq[(Long, Long, Byte, String)] =
    Iterator.continually(c.advance()).takeWhile(identity).map { _ =>
      val kv = c.current
      (kv.key.getLong(0), kv.sequenceNumber, kv.valueKind, kv.value.getUTF8String(1).toString)
    }.toList

  test("a run is looked up only once its files' local files are built, and yields its records of the keys") {
    val r = readers(Map("changelog-producer" -> "lookup"), s"/key-lookup-run-test/${UUID.randomUUID()}")
    val keys = LongKeys.of(Array(2L, 3L, 4L, 9L, 11L)).counting()
    assert(KeyLookupRun.of(r, bucketPath, run, keys, KeyLookups(dir, 1), new CacheCounters).isEmpty,
      "no local file is built yet, and a read builds none")
    buildLocalFiles(r, Seq(fileOf("a", 2)))
    assert(KeyLookupRun.of(r, bucketPath, run, keys, KeyLookups(dir, 1), new CacheCounters).isEmpty,
      "file b holds chosen keys and has no local file")
    buildLocalFiles(r, Seq(fileOf("b", 2)))
    val c = KeyLookupRun.of(r, bucketPath, run, keys, KeyLookups(dir, 1), new CacheCounters).get
    // a delete comes as it is; key 4 lies between the files' ranges and 11 beyond them: not looked up
    assert(drain(c) == Seq((2L, 11L, RowKind.UpdateAfter, "a2"), (3L, 12L, RowKind.Delete, "a3"), (9L, 3L, RowKind.Insert, "b9")))
    assert(keys.lookedUp == 3)
    assert(!c.advance(), "an exhausted cursor stays exhausted")
  }

  test("the rule: keys few against the run's rows, a run above level 0, no deletion vectors") {
    val path = s"/key-lookup-run-test/${UUID.randomUUID()}"
    val r = readers(Map("changelog-producer" -> "lookup"), path)
    buildLocalFiles(r, run.files)
    val two = LongKeys.of(Array(2L, 9L))
    // 2 keys in 7 rows: one per 3.5 rows
    assert(KeyLookupRun.of(r, bucketPath, run, two, KeyLookups(dir, 3), new CacheCounters).map(_.close()).isDefined)
    assert(KeyLookupRun.of(r, bucketPath, run, two, KeyLookups(dir, 4), new CacheCounters).isEmpty)
    assert(KeyLookupRun.of(r, bucketPath, run, two, KeyLookups(dir, 0), new CacheCounters).isEmpty)
    assert(KeyLookupRun.of(r, bucketPath, run, LongKeys.of(Array(20L)), KeyLookups(dir, 1), new CacheCounters).isEmpty,
      "no chosen key inside the run")
    assert(KeyLookupRun.of(r, bucketPath, run.copy(level = 0), two, KeyLookups(dir, 1), new CacheCounters).isEmpty)
    val dv = readers(Map("deletion-vectors.enabled" -> "true"), path)
    assert(KeyLookupRun.of(dv, bucketPath, run, two, KeyLookups(dir, 1), new CacheCounters).isEmpty)
  }

  test("with readers of whole files to build from, a run's missing local files are built and kept") {
    val r = readers(Map("changelog-producer" -> "lookup"), s"/key-lookup-run-test/${UUID.randomUUID()}")
    val keys = LongKeys.of(Array(1L, 10L))
    val c = KeyLookupRun.of(r, bucketPath, run, keys, KeyLookups(dir, 1, builders = Some(r)), new CacheCounters).get
    assert(drain(c).map(_._1) == Seq(1L, 10L))
    // built once, they serve a read without builders
    assert(KeyLookupRun.of(r, bucketPath, run, keys, KeyLookups(dir, 1), new CacheCounters).map(drain(_).size).contains(2))
  }
}
