package lamina.table.compact

import java.nio.file.Files

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.format.fileindex.{BloomFilterIndex, DataFileIndexWriter, FileIndexFile, FileIndexSpec}
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit
import lamina.table.compact.FileIndexRewrite.{FileColumns, Plan, Work}
import lamina.table.lifecycle.FileReferences
import lamina.table.manifest.ManifestEntry
import lamina.table.predicate.EqualTo
import lamina.table.scan.FileIndexFilter
import lamina.table.schema.TableSchema
import lamina.types.{ArrayType, BooleanType, DataField, IntType, VarCharType}

/** The file-index rewrite of one file (its rows given, no engine), the columns it indexes in files of
 *  older schemas, its commit and the extra files its snapshot's expiration may remove. */
class FileIndexRewriteTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("file-index-rewrite")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private var n = 0
  private def newTable(): FileStoreTable = {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema(Map("file-index.bloom-filter.columns" -> "id")))
  }

  private def schema(id: Long, fields: DataField*) = TableSchema(id, fields, 9, Nil, Nil, Map.empty, None, 0L)
  private val bloomOnId = FileIndexSpec(Seq(FileIndexSpec.BloomColumn("id", 0, IntType(), 100, 0.001)), 500)
  private val idColumns = FileColumns(Seq(DataField(0, "id", IntType())), bloomOnId)
  private def rows(ids: Range): Iterator[InternalRow] = ids.iterator.map(i => InternalRow(i))

  /** A plan of table `t` indexing `id` of schema 0's files, embedding indexes up to `threshold` bytes. */
  private def plan(t: FileStoreTable, threshold: Long, named: Set[String] = Set("id"),
      columns: Option[FileColumns] = Some(idColumns)) =
    Plan(t, Seq.empty, Map(0L -> columns), Map(0L -> named), threshold)

  private def work(t: FileStoreTable, f: lamina.table.manifest.DataFileMeta) = {
    val dir = root.resolve(s"t$n-bucket")
    Files.createDirectories(dir)
    Work(ManifestEntry(ManifestEntry.Add, TestTables.stringPartition("a"), 0, -1, f), TestTables.hadoopPath(dir).toString)
  }

  private def skips(f: lamina.table.manifest.DataFileMeta, w: Work, id: Int): Boolean =
    !new FileIndexFilter(TestTables.fileIO, TestTables.eventsSchema())
      .mightMatch(f, new Path(w.dir), TestTables.eventsSchema(), Seq(EqualTo("id", id)))

  test("the columns of a file of an older schema are found by field id, under the file's names and types") {
    val current = schema(2, DataField(0, "key", IntType()), DataField(1, "v", VarCharType.string()),
      DataField(3, "added", IntType()))
    val spec = FileIndexSpec(Seq(FileIndexSpec.BloomColumn("key", 0, IntType(), 100, 0.01),
        FileIndexSpec.BloomColumn("added", 2, IntType(), 100, 0.01)),
      500, Seq(FileIndexSpec.BitmapColumn("v", 1, VarCharType.string())))
    val old = schema(0, DataField(0, "id", IntType()), DataField(1, "v", VarCharType.string()))
    val c = FileIndexRewrite.columnsOf(current, old, spec).get
    assert(c.fields === old.fields)
    assert(c.spec.bloomFilters.map(b => (b.name, b.ordinal)) === Seq(("id", 0)))
    assert(c.spec.bitmaps.map(b => (b.name, b.ordinal)) === Seq(("v", 1)))
    // a column whose type in the file takes no bloom filter, and a file with none of the columns: nothing to index
    val asBoolean = schema(0, DataField(0, "id", BooleanType()))
    assert(FileIndexRewrite.columnsOf(current, asBoolean, spec.copy(bitmaps = Nil)) === None)
    assert(FileIndexRewrite.columnsOf(current, schema(0, DataField(7, "w", ArrayType(IntType()))), spec) === None)
  }

  test("a file without an index gets one, in a new .index file above the threshold, and skips by it") {
    val t = newTable()
    val f = file("data-x-0.parquet")
    val w = work(t, f)
    val r = FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, threshold = 10), w, rows(1 to 10)).get
    assert(r.written === Some("data-x-0.parquet.index") && r.file.extraFiles === Seq("data-x-0.parquet.index"))
    assert(r.file.embeddedIndex === None && r.file.copy(extraFiles = Nil) === f)
    assert(skips(r.file, w, 11) && !skips(r.file, w, 3))
    // the same rows again: the index is the same, nothing to rewrite
    assert(FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, threshold = 10), w.copy(entry = w.entry.copy(file = r.file)),
      rows(1 to 10)) === None)
    // other rows: a new file beside the old one, which older snapshots still use
    val again = FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, threshold = 10),
      w.copy(entry = w.entry.copy(file = r.file)), rows(20 to 30)).get
    assert(again.file.extraFiles === Seq("data-x-0.parquet-1.index"))
    assert(skips(again.file, w, 3) && !skips(again.file, w, 25) && !skips(r.file, w, 3))
  }

  test("below the threshold the index is embedded and an old index file leaves the entry; no rows are read without columns") {
    val t = newTable()
    val w = work(t, file("data-y-0.parquet").copy(extraFiles = Seq("data-y-0.parquet.index", "other.extra")))
    TestTables.fileIO.writeBytes(new Path(w.dir, "data-y-0.parquet.index"),
      FileIndexFile.encode(Seq("id" -> Seq(BloomFilterIndex.IndexType -> None))))
    val r = FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, threshold = 100000), w, rows(1 to 5)).get
    assert(r.written === None && r.file.extraFiles === Seq("other.extra") && r.file.embeddedIndex.isDefined)
    assert(skips(r.file, w, 6))
    // options that name no column any more: the index goes, and the rows are not read
    val dropped = FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, 100000, named = Set.empty, columns = None),
      w.copy(entry = w.entry.copy(file = r.file)), throw new AssertionError("rows read")).get
    assert(dropped.file.embeddedIndex === None && dropped.file.extraFiles === Seq("other.extra"))
  }

  test("index types Lamina does not write are kept for columns an option still names, dropped for the others") {
    val t = newTable()
    val bsi = Array[Byte](1, 2, 3)
    val old = FileIndexFile.encode(Seq("id" -> Seq("bsi" -> Some(bsi)), "v" -> Seq("bsi" -> Some(bsi))))
    val w = work(t, file("data-z-0.parquet").copy(embeddedIndex = Some(old)))
    val r = FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, 100000), w, rows(1 to 5)).get
    val index = FileIndexFile.decode("test", r.file.embeddedIndex.get)
    assert(index.entries.keySet === Set("id") && index.entries("id").keySet === Set(BloomFilterIndex.IndexType, "bsi"))
    assert(index.index("id", "bsi").flatten.map(_.toSeq) === Some(bsi.toSeq))
  }

  test("a name an earlier failed run left is not reused") {
    val t = newTable()
    val w = work(t, file("data-w-0.parquet"))
    TestTables.fileIO.writeBytes(new Path(w.dir, "data-w-0.parquet.index"), Array[Byte](9))
    val r = FileIndexRewrite.rewrite(TestTables.fileIO, plan(t, 10), w, rows(1 to 3)).get
    assert(r.written === Some("data-w-0.parquet-1.index"))
    assert(DataFileIndexWriter.nextIndexFileName("data-w-0.parquet-1.index") === "data-w-0.parquet-2.index")
  }

  test("the commit replaces the entries in one COMPACT snapshot; a stale entry is a conflict that removes the new index files") {
    val t = newTable()
    val f = file("data-c-0.parquet", rows = 4)
    new FileStoreCommit(t, "writer").append(Seq(message("a", f)))
    val live = new FileStoreCommit(t, "reader").liveEntries(t.snapshotManager.latest().get)
    val dir = t.paths.bucketDir(t.manifestStore.decodePartition(live.head.partition), 0).toString
    val p = Plan(t, live.map(Work(_, dir)), Map(0L -> Some(idColumns)), Map(0L -> Set("id")), 10)
    val rewritten = p.work.flatMap(FileIndexRewrite.rewrite(TestTables.fileIO, p, _, rows(1 to 4)))
    val done = FileIndexRewrite.commit(p, rewritten)
    assert((done.snapshotId, done.partitions, done.files) === ((Some(2L), 1, 1)))
    val s2 = t.snapshotManager.snapshot(2)
    assert(s2.commitKind === "COMPACT" && s2.totalRecordCount === Some(4L))
    val after = new FileStoreCommit(t, "reader").liveEntries(s2)
    assert(after.map(_.file.extraFiles) === Seq(Seq("data-c-0.parquet.index")))
    // a rewrite (or a compaction) planned on snapshot 1 names the entry this one replaced
    val stale = p.work.flatMap(FileIndexRewrite.rewrite(TestTables.fileIO, p, _, rows(5 to 9)))
    val written = new Path(dir, stale.head.written.get)
    val e = intercept[CommitConflictException](FileIndexRewrite.commit(p, stale))
    assert(e.getMessage.startsWith(s"Rewrite of the file indexes of table ${t.name} conflicts with a concurrent commit: " +
        s"Commit to table ${t.name} conflicts with a concurrent commit: file data-c-0.parquet (bucket 0) was already " +
        "deleted or replaced."))
    assert(!TestTables.fileIO.exists(written) && TestTables.fileIO.exists(new Path(dir, "data-c-0.parquet.index")))
    intercept[CommitConflictException](new FileStoreCommit(t, "compactor").append(Seq(
          message("a").copy(compactBefore = Seq(f), compactAfter = Seq(file("data-d-0.parquet", rows = 4))))))
  }

  test("expiring a rewrite's snapshot may remove the index files its entries no longer name, never the data file") {
    val a = TestTables.stringPartition("a")
    val before = ManifestEntry(ManifestEntry.Delete, a, 0, -1, file("f").copy(extraFiles = Seq("f.index", "f.extra")))
    val after = before.copy(kind = ManifestEntry.Add, file = file("f").copy(extraFiles = Seq("f-1.index", "f.extra")))
    val gone = ManifestEntry(ManifestEntry.Delete, a, 0, -1, file("g").copy(extraFiles = Seq("g.index")))
    assert(FileReferences.extrasDroppedBy(Seq(before, after, gone)) === Seq(before -> Seq("f.index")))
    assert(FileReferences.removedBy(Seq(before, after, gone)) === Seq(gone))
  }

  test("an entry's identifier covers its extra files and embedded index, as Paimon's") {
    val e = ManifestEntry(ManifestEntry.Add, TestTables.stringPartition("a"), 0, -1, file("f"))
    assert(e.identifier !== e.copy(file = e.file.copy(extraFiles = Seq("f.index"))).identifier)
    assert(e.copy(file = e.file.copy(embeddedIndex = Some(Array[Byte](1)))).identifier ===
      e.copy(file = e.file.copy(embeddedIndex = Some(Array[Byte](1)))).identifier)
    assert(e.identifier !== e.copy(file = e.file.copy(embeddedIndex = Some(Array[Byte](1)))).identifier)
  }
}
