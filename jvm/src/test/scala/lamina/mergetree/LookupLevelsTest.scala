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
import lamina.types.{DataField, IntType, VarCharType}

/** The lookup path of lookup compaction at unit level: the levels a compaction leaves alone, each
 *  file's local lookup file built from its rows, a key's newest live row found and marked deleted in
 *  its file's deletion vector. The data files are rows in memory, read through the merge tree's own
 *  reader with a read function that serves them by name. */
class LookupLevelsTest extends AnyFunSuite {
  private val options = Map("deletion-vectors.enabled" -> "true")
  private val schema = TableSchema(0L, Seq(DataField(0, "k", IntType(false)), DataField(1, "v", VarCharType.string())), 1,
    Nil, Seq("k"), options, None, 0L)
  private val layout = KeyValueLayout(schema)

  /** (key, sequence number, kind, value) records of each file, in file order. */
  private val records: Map[String, Seq[(Int, Long, Byte, String)]] = Map(
    "a" -> Seq((1, 10L, RowKind.Insert, "a1"), (2, 11L, RowKind.UpdateAfter, "a2"), (3, 12L, RowKind.Insert, "a3")),
    "b" -> Seq((2, 1L, RowKind.Insert, "b2"), (4, 2L, RowKind.Insert, "b4"), (5, 3L, RowKind.Insert, "b5")))

  private def key(k: Int) = BinaryRowCodec.serialize(InternalRow(k), Seq(IntType(false)))

  private def fileOf(name: String, level: Int): DataFileMeta = {
    val rs = records(name)
    TestTables.file(name, rows = rs.size, level = level)
      .copy(minKey = key(rs.head._1), maxKey = key(rs.last._1), minSequenceNumber = rs.map(_._2).min,
        maxSequenceNumber = rs.map(_._2).max)
  }

  private val reader = FileSchemaReader(
    (path: String, _: Long) =>
      records(path.split('/').last).iterator.map { case (k, seq, kind, v) =>
        InternalRow(k, seq, kind, k, UTF8String.fromString(v))
      },
    layout.fileStruct, layout.fileStruct.fields.indices.toArray, layout.fileStruct)

  private def levels(vectors: DeletionVectorsMaintainer, withValue: Boolean, counts: CacheCounters = new CacheCounters,
      tablePath: String = s"/lookup-levels-test/${UUID.randomUUID()}"): LookupLevels = {
    val table = MergeTreeTable.of("db.t", tablePath, TestTables.fileIO, layout,
      TableCapabilities.of(options, primaryKey = true, "db.t"), options)
    val readers = KeyValueReaders(Map(0L -> reader), Map.empty, table,
      MergeFunctions.factory(schema.fields, schema.primaryKeys, options, "db.t"))
    // newest first, as Levels.runs lists them
    val runs = Seq(SortedRun(1, IndexedSeq(fileOf("a", 1))), SortedRun(4, IndexedSeq(fileOf("b", 4))))
    new LookupLevels(readers, "/lookup-levels-test/bucket-0", runs, vectors, withValue,
      Files.createTempDirectory("lookup-levels").toFile, counts)
  }

  test("a key's newest live row is found in the newest level holding it, and marked deleted there") {
    val vectors = new DeletionVectorsMaintainer(Map.empty, bitmap64 = false)
    val l = levels(vectors, withValue = true)
    try {
      val first = l.lookupAndDelete(InternalRow(2)).get
      assert((first.key.getInt(0), first.sequenceNumber, first.valueKind) == ((2, 11L, RowKind.UpdateAfter)))
      assert(first.value.getUTF8String(1).toString == "a2" && first.value.getInt(0) == 2)
      assert(vectors.isDeleted("a", 1) && !vectors.isDeleted("a", 0) && !vectors.isDeleted("b", 0))
      // its row in `a` is deleted now: the next live row of the key is the older level's
      val second = l.lookupAndDelete(InternalRow(2)).get
      assert((second.sequenceNumber, second.value.getUTF8String(1).toString) == ((1L, "b2")))
      assert(vectors.isDeleted("b", 0))
      assert(l.lookupAndDelete(InternalRow(2)).isEmpty, "no live row of the key is left")
      assert(l.lookupAndDelete(InternalRow(5)).map(_.value.getUTF8String(1).toString).contains("b5"))
      assert(vectors.isDeleted("b", 2))
      // between the files' key ranges, and beyond every range
      assert(l.lookupAndDelete(InternalRow(0)).isEmpty && l.lookupAndDelete(InternalRow(9)).isEmpty)
    } finally l.close()
  }

  test("without values the lookup gives the key's position only") {
    val vectors = new DeletionVectorsMaintainer(Map.empty, bitmap64 = false)
    val l = levels(vectors, withValue = false)
    try {
      val found = l.lookupAndDelete(InternalRow(3)).get
      assert(found.key.getInt(0) == 3 && found.value == null)
      assert(vectors.isDeleted("a", 2))
      assert(l.lookupAndDelete(InternalRow(4)).isDefined && vectors.isDeleted("b", 1))
    } finally l.close()
  }

  test("rows already deleted by the table's vectors are not found") {
    val vectors = new DeletionVectorsMaintainer(Map.empty, bitmap64 = false)
    vectors.delete("a", 0)
    val l = levels(vectors, withValue = true)
    try assert(l.lookupAndDelete(InternalRow(1)).isEmpty)
    finally l.close()
  }

  test("lookups count the lookup cache's hits and misses; a later task's lookups of the same files hit") {
    val path = s"/lookup-levels-test/${UUID.randomUUID()}"
    val first = new CacheCounters
    val l = levels(new DeletionVectorsMaintainer(Map.empty, bitmap64 = false), withValue = true, first, path)
    try {
      assert(l.lookupAndDelete(InternalRow(2)).isDefined)
      assert(first.misses > 0, first) // the local file of `a` was just built: its pages are read
      val misses = first.misses
      assert(l.lookupAndDelete(InternalRow(1)).isDefined)
      assert(first.misses == misses && first.hits > 0, first) // the same pages, in memory
    } finally l.close()
    // the same data files in a later task: their local files and pages are the JVM's already
    val later = new CacheCounters
    val again = levels(new DeletionVectorsMaintainer(Map.empty, bitmap64 = false), withValue = true, later, path)
    try {
      assert(again.lookupAndDelete(InternalRow(1)).isDefined && again.lookupAndDelete(InternalRow(2)).isDefined)
      assert(later.misses == 0 && later.hits > 0, later)
    } finally again.close()
  }
}
