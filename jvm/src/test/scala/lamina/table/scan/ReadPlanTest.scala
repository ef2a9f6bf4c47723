package lamina.table.scan

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.{DeletionFile, DeletionVectorRange}
import lamina.format.BinaryRowCodec
import lamina.mergetree.MergeTreeTable
import lamina.table.{KeyValueLayout, TestTables}
import lamina.table.manifest.DataFileMeta
import lamina.table.options.TableCapabilities
import lamina.table.schema.TableSchema
import lamina.types.{DataField, IntType, VarCharType}

class ReadPlanTest extends AnyFunSuite {

  private def table(primaryKey: Boolean, options: Map[String, String] = Map.empty, schemaId: Long = 1L): MergeTreeTable = {
    val schema = TableSchema(schemaId, Seq(DataField(0, "k", IntType(false)), DataField(1, "v", VarCharType.string())), 1,
      Nil, if (primaryKey) Seq("k") else Nil, options, None, 0L)
    MergeTreeTable.of("db.t", "/nowhere/db.db/t", TestTables.fileIO, KeyValueLayout(schema),
      TableCapabilities.of(options, primaryKey, "db.t"), options)
  }
  private val dv = Map("deletion-vectors.enabled" -> "true")

  private def key(k: Int) = BinaryRowCodec.serialize(InternalRow(k), Seq(IntType(false)))

  /** A file of keys `lo` to `hi`. */
  private def file(name: String, level: Int = 0, schemaId: Long = 1L, size: Long = 100L, deletes: Long = 0L,
      lo: Int = 0, hi: Int = 9) =
    TestTables.file(name, schemaId = schemaId, level = level)
      .copy(fileSize = size, deleteRowCount = Some(deletes), minKey = key(lo), maxKey = key(hi))

  private def split(files: Seq[DataFileMeta], vectors: String*) =
    DataSplit(1L, Array.emptyByteArray, 0, 1, "/nowhere/db.db/t/bucket-0", files,
      vectors.map(n => n -> DeletionFile("/nowhere/index-0", 10L, DeletionVectorRange(n, 1, 4, Some(1L)))).toMap)

  /** Format abilities; `merged` counts how often the merge's batches were asked about. */
  private final class Format(batches: Boolean = true, positions: Boolean = true, mergedBatches: Boolean = true) {
    var asked = 0
    val abilities: FormatAbilities = FormatAbilities(batches, positions, () => { asked += 1; mergedBatches })
  }

  private def kind(t: MergeTreeTable, r: ReadRequest, splits: Seq[DataSplit], f: Format = new Format) =
    new ReadPlan(t, r).kind(splits, f.abilities)

  private val normal = ReadRequest(ScanMode.Normal)

  test("rows with their positions are read as such whatever else holds") {
    assert(kind(table(false), normal.copy(positioned = true), Seq(split(Seq(file("a"))))) == ReaderKind.PositionedRows)
  }

  test("an append table's files are read as batches only in one schema, without vectors, where the format can") {
    val t = table(false)
    assert(kind(t, normal, Seq(split(Seq(file("a"), file("b"))))) == ReaderKind.FileBatches)
    assert(kind(t, normal, Seq(split(Seq(file("a"))))) == ReaderKind.FileBatches)
    assert(kind(t, normal, Seq(split(Seq(file("a"), file("old", schemaId = 0L))))) == ReaderKind.FileRows)
    assert(kind(t, normal, Seq(split(Seq(file("a")))), new Format(batches = false)) == ReaderKind.FileRows)
    assert(kind(t, normal, Seq(split(Seq(file("a")), "a"))) == ReaderKind.FileRows, "a vector needs row positions")
    assert(kind(t, normal, Nil) == ReaderKind.FileRows, "nothing to read plans no batches")
    assert(kind(t, ReadRequest(ScanMode.AuditLog), Seq(split(Seq(file("a"))))) == ReaderKind.AppendAuditLog)
    assert(kind(t, normal.copy(changes = true, diff = true), Seq(split(Seq(file("a"))))) == ReaderKind.AppendDiff)
  }

  test("deletion vectors are applied to batches by row position where the format says positions") {
    val t = table(false, dv)
    val s = Seq(split(Seq(file("a"), file("b")), "a"))
    assert(kind(t, normal, s) == ReaderKind.DeletionVectorBatches)
    assert(kind(t, normal, s, new Format(positions = false)) == ReaderKind.FileRows)
    assert(kind(t, normal, s, new Format(batches = false)) == ReaderKind.FileRows)
    assert(kind(t, normal.copy(microBatch = true), s) == ReaderKind.FileRows)
    assert(kind(t, ReadRequest(ScanMode.RowLevel), s) == ReaderKind.FileRows)
  }

  test("a primary-key bucket is merged unless one run without deletes reads directly") {
    val t = table(true)
    val top = Seq(split(Seq(file("a", level = 5))))
    assert(kind(t, normal, top) == ReaderKind.FileBatches)
    val f = new Format(mergedBatches = false)
    assert(kind(t, normal, top, f) == ReaderKind.FileBatches && f.asked == 0, "the merge's readers are built only when needed")
    // two sorted runs above level 0 may hold one key twice: merged
    assert(kind(t, normal, Seq(split(Seq(file("a", level = 4), file("b", level = 5))))) == ReaderKind.MergedBatches)
    // deletes in the file, or a level-0 file: merged
    assert(kind(t, normal, Seq(split(Seq(file("a", level = 5, deletes = 2L))))) == ReaderKind.MergedBatches)
    val l0 = Seq(split(Seq(file("a", level = 0), file("b", level = 5))))
    assert(kind(t, normal, l0) == ReaderKind.MergedBatches)
    assert(kind(t, normal, l0, f) == ReaderKind.MergedRows && f.asked == 1)
    // a micro-batch, $audit_log and changes never merge into batches
    val g = new Format()
    assert(kind(t, normal.copy(microBatch = true), l0, g) == ReaderKind.MergedRows)
    assert(kind(t, ReadRequest(ScanMode.AuditLog), top, g) == ReaderKind.MergedRows)
    assert(g.asked == 0)
    assert(kind(t, normal.copy(changes = true), l0) == ReaderKind.Changes)
    assert(kind(t, normal.copy(changes = true, diff = true), l0) == ReaderKind.MergedDiff)
  }

  test("$ro reads a primary-key table's files alone") {
    val t = table(true)
    val s = Seq(split(Seq(file("a", level = 5, deletes = 3L))))
    assert(kind(t, ReadRequest(ScanMode.ReadOptimized), s) == ReaderKind.FileBatches)
    assert(kind(t, ReadRequest(ScanMode.ReadOptimized), s, new Format(batches = false)) == ReaderKind.FileRows)
  }

  test("a primary-key table read without merging skips level 0 and applies each file's vector") {
    val t = table(true, dv)
    val plan = new ReadPlan(t, normal)
    assert(plan.skipsLevel0 && plan.readsWithoutMerge)
    val s = Seq(split(Seq(file("new", level = 0, schemaId = 0L), file("a", level = 1), file("b", level = 5, lo = 10, hi = 19)),
        "a"))
    assert(plan.kind(s, new Format().abilities) == ReaderKind.DeletionVectorBatches)
    assert(plan.partitions(s, ReaderKind.DeletionVectorBatches, 1000L).flatMap(_.files.map(_.fileName)) == Seq("a", "b"))
    // merge-on-read: the same table's bucket is merged
    val mor = table(true, dv + ("deletion-vectors.merge-on-read" -> "true"))
    assert(!new ReadPlan(mor, normal).readsWithoutMerge)
    assert(kind(mor, normal, s) == ReaderKind.MergedRows, "a vector needs rows read one by one in a merge")
  }

  test("files read alone are packed into partitions of about the target size; merged buckets stay whole") {
    val files = (1 to 5).map(i => file(s"f$i", size = 400L))
    val s = Seq(split(files), split(files.take(1)))
    val append = new ReadPlan(table(false), normal)
    assert(append.partitions(s, ReaderKind.FileBatches, 1000L).map(_.files.size) == Seq(2, 2, 1, 1))
    val pk = new ReadPlan(table(true), normal)
    assert(pk.partitions(s, ReaderKind.MergedRows, 1000L).map(_.files.size) == Seq(5, 1))
  }
}
