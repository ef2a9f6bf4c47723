package lamina.table.scan

import java.nio.file.{Files, Paths}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.format.StatsCollector
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.file
import lamina.table.commit.{CommitMessage, FileStoreCommit}
import lamina.table.manifest.{DataFileMeta, SimpleStats}
import lamina.table.predicate._
import lamina.table.schema.{SchemaChange, TableSchema}
import lamina.types._

class FileStoreScanTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("file-store-scan")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private var n = 0
  private def newTable(schema: TableSchema = TestTables.eventsSchema()): FileStoreTable = {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), schema)
  }

  /** Value stats of the rows, as Lamina's writer records them (all columns, valueStatsCols None). */
  private def statsOf(types: Seq[DataType], rows: Seq[InternalRow]): SimpleStats = {
    val c = new StatsCollector(types, types.indices.toArray, Seq.fill(types.size)(lamina.format.StatsMode.Full))
    rows.foreach(c.update)
    SimpleStats.from(c.resultSerialized())
  }

  private val eventTypes = TestTables.eventsSchema().fields.map(_.dataType)
  private def ev(id: Integer, v: String, p: String): InternalRow =
    InternalRow(id, if (v == null) null else UTF8String.fromString(v), if (p == null) null else UTF8String.fromString(p))

  /** A file of rows (id, v) in partition p, with stats over every column. */
  private def statsFile(name: String, p: String, rows: (Integer, String)*): DataFileMeta =
    file(name, rows = rows.size.toLong, valueStats = statsOf(eventTypes, rows.map { case (i, v) => ev(i, v, p) }),
      statsCols = None)

  private def names(splits: Seq[DataSplit]): Seq[String] = splits.flatMap(_.files.map(_.fileName)).sorted

  /** Partitions a, b, c and the null partition, one file each, one commit each. */
  private lazy val partitioned: FileStoreTable = {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    for (p <- Seq("a", "b", "c", null))
      c.append(Seq(CommitMessage(TestTables.stringPartition(p), 0, -1, Seq(file(s"f-$p")))))
    c.append(Seq(CommitMessage(TestTables.stringPartition("a"), 1, -1, Seq(file("f-a-1")))))
    t
  }
  private def scan(t: FileStoreTable) = new FileStoreScan(t, t.snapshotManager.latest().get)

  test("plan groups live files into splits by partition and bucket, with their directories") {
    val splits = scan(partitioned).plan()
    assert(splits.map(s => (Option(TestTables.stringPartitionValue(s.partition)), s.bucket, s.files.map(_.fileName))) === Seq(
      (Some("a"), 0, Seq("f-a")), (Some("a"), 1, Seq("f-a-1")), (None, 0, Seq("f-null")), (Some("b"), 0, Seq("f-b")),
      (Some("c"), 0, Seq("f-c"))).sortBy(x => (x._1.getOrElse("__DEFAULT_PARTITION__"), x._2)))
    val a0 = splits.find(_.files.head.fileName == "f-a").get
    assert(a0.bucketPath === new org.apache.hadoop.fs.Path(partitioned.path, "p=a/bucket-0").toString)
    assert(splits.find(_.files.head.fileName == "f-null").get.bucketPath.endsWith("/p=__DEFAULT_PARTITION__/bucket-0"))
    assert(splits.forall(_.snapshotId === 5L))
    assert(a0.rowCount === 10L)
  }

  test("partition pruning on the partition values") {
    val cases: Seq[(Predicate, Seq[String])] = Seq(
      EqualTo("p", "b") -> Seq("f-b"),
      In("p", Array("a", "c")) -> Seq("f-a", "f-a-1", "f-c"),
      GreaterThan("p", "a") -> Seq("f-b", "f-c"),
      IsNull("p") -> Seq("f-null"),
      IsNotNull("p") -> Seq("f-a", "f-a-1", "f-b", "f-c"),
      Or(EqualTo("p", "a"), IsNull("p")) -> Seq("f-a", "f-a-1", "f-null"),
      EqualTo("p", "zzz") -> Nil,
      // p != 'a' is NULL, not TRUE, for the null partition
      Not(EqualTo("p", "a")) -> Seq("f-b", "f-c"),
      Not(In("p", Array("a", "b"))) -> Seq("f-c"),
      Not(Or(EqualTo("p", "a"), EqualTo("p", "b"))) -> Seq("f-c"))
    for ((f, want) <- cases) {
      assert(names(scan(partitioned).plan(Seq(f))) === want, f)
      assert(scan(partitioned).liveEntries(Seq(f)).map(_.file.fileName).sorted === want, f)
    }
    assert(names(scan(partitioned).plan(Seq(IsNotNull("p"), Not(EqualTo("p", "a"))))) === Seq("f-b", "f-c"))
  }

  test("manifests whose partition range cannot match are not even read") {
    val t = newTable()
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(TestTables.message("a", file("f-a"))))
    c.append(Seq(TestTables.message("b", file("f-b"))))
    val s = t.snapshotManager.latest().get
    val manifestOfA = t.manifestStore.readList(s.baseManifestList).head.fileName
    val local = Paths.get(t.paths.manifestPath(manifestOfA).toUri)
    Files.write(local, "garbage".getBytes("UTF-8"))
    Files.deleteIfExists(local.resolveSibling(s".$manifestOfA.crc"))
    assert(names(new FileStoreScan(t, s).plan(Seq(EqualTo("p", "b")))) === Seq("f-b"))
    val e = intercept[CorruptFileException](new FileStoreScan(t, s).plan(Seq(EqualTo("p", "a"))))
    assert(e.path === t.paths.manifestPath(manifestOfA).toString)
  }

  /** One partition; f1 ids 1..10, f2 ids 11..20, f3 only nulls, f4 without stats. */
  private lazy val withStats: FileStoreTable = {
    val t = newTable()
    new FileStoreCommit(t, "w").append(Seq(CommitMessage(TestTables.stringPartition("a"), 0, -1,
          Seq(
            statsFile("f1", "a", (1: Integer) -> "apple", (10: Integer) -> "banana"),
            statsFile("f2", "a", (11: Integer) -> "cherry", (20: Integer) -> null),
            statsFile("f3", "a", (null: Integer) -> null, (null: Integer) -> null),
            file("f4")))))
    t
  }

  test("stats-based file skipping") {
    val cases: Seq[(Predicate, Seq[String])] = Seq(
      GreaterThan("id", 15) -> Seq("f2", "f4"),
      EqualTo("id", 10) -> Seq("f1", "f4"),
      LessThan("id", 1) -> Seq("f4"),
      In("id", Array(5, 15)) -> Seq("f1", "f2", "f4"),
      IsNull("id") -> Seq("f3", "f4"),
      IsNotNull("id") -> Seq("f1", "f2", "f4"),
      EqualTo("v", "avocado") -> Seq("f1", "f4"),
      EqualTo("v", "blueberry") -> Seq("f4"),
      EqualTo("v", "zzz") -> Seq("f4"),
      IsNull("v") -> Seq("f2", "f3", "f4"),
      Or(EqualTo("id", 3), EqualTo("v", "cherry")) -> Seq("f1", "f2", "f4"),
      Not(EqualTo("id", 3)) -> Seq("f1", "f2", "f3", "f4"),
      EqualTo("no_such_column", 1) -> Seq("f1", "f2", "f3", "f4"))
    for ((f, want) <- cases) assert(names(scan(withStats).plan(Seq(f))) === want, f)
    assert(names(scan(withStats).plan(Seq(EqualTo("p", "a"), GreaterThan("id", 15)))) === Seq("f2", "f4"))
    assert(names(scan(withStats).plan(Seq(EqualTo("p", "b"), GreaterThan("id", 15)))) === Nil)
  }

  test("files written under an older schema are matched by field id") {
    val t0 = newTable()
    new FileStoreCommit(t0, "w").append(Seq(CommitMessage(TestTables.stringPartition("a"), 0, -1,
          Seq(
            statsFile("old1", "a", (1: Integer) -> "apple"), statsFile("old2", "a", (50: Integer) -> "zebra")))))
    val s1 = t0.schemaManager.commitChanges(Seq(SchemaChange.RenameColumn("v", "w"),
        SchemaChange.UpdateColumnType("id", BigIntType())))
    val t = t0.withSchema(s1)
    val sc = new FileStoreScan(t, t.snapshotManager.latest().get)
    // renamed column: the old stats still apply under the new name
    assert(names(sc.plan(Seq(EqualTo("w", "zebra")))) === Seq("old2"))
    // the old name is no column any more: nothing can be skipped on it
    assert(names(sc.plan(Seq(EqualTo("v", "zebra")))) === Seq("old1", "old2"))
    // the type changed: the old stats are not used
    assert(names(sc.plan(Seq(EqualTo("id", 50L)))) === Seq("old1", "old2"))
  }

  test("files without usable stats are never skipped") {
    val t = newTable()
    val garbage = SimpleStats(Array[Byte](0, 0, 0, 3, 1, 2), Array[Byte](9), Seq(None, None, None))
    new FileStoreCommit(t, "w").append(Seq(CommitMessage(TestTables.stringPartition("a"), 0, -1,
          Seq(
            file("no-cols", statsCols = Some(Nil)),
            file("garbage", valueStats = garbage, statsCols = None),
            file("other-cols", valueStats = statsOf(Seq(IntType()), Seq(InternalRow(1))), statsCols = Some(Seq("gone")))))))
    assert(names(scan(t).plan(Seq(EqualTo("id", 1000)))) === Seq("garbage", "no-cols", "other-cols"))
  }

  test("stats of a table with a nested column still skip files on its atomic columns") {
    val rowType = RowType(Seq(DataField(3, "x", IntType())))
    val schema = TableSchema(0,
      Seq(DataField(0, "id", IntType()), DataField(1, "v", VarCharType.string()),
        DataField(2, "r", rowType), DataField(4, "tags", ArrayType(IntType()))), 4, Nil, Nil, Map.empty, None, 0L)
    val types = schema.fields.map(_.dataType)
    def nestedFile(name: String, ids: Int*): DataFileMeta = file(name, rows = ids.size.toLong, statsCols = None,
      valueStats = statsOf(types, ids.map(i => InternalRow(i, UTF8String.fromString(s"v$i"), InternalRow(i), null))))
    val t = newTable(schema)
    val unpartitioned = lamina.format.BinaryRowCodec.serialize(InternalRow.empty, Nil)
    new FileStoreCommit(t, "w").append(Seq(CommitMessage(unpartitioned, 0, -1,
          Seq(nestedFile("low", 1, 5), nestedFile("high", 50, 60)))))
    assert(names(scan(t).plan(Seq(GreaterThan("id", 10)))) === Seq("high"))
    assert(names(scan(t).plan(Seq(EqualTo("v", "v1")))) === Seq("low"))
    assert(names(scan(t).plan(Seq(IsNull("tags")))) === Seq("high", "low"))
    assert(names(scan(t).plan(Seq(IsNotNull("tags")))) === Nil)
    assert(names(scan(t).plan(Seq(IsNotNull("r")))) === Seq("high", "low"))
  }

  test("a pypaimon-written table plans its live files, pruned by partition") {
    val dir = TestTables.copyFixture("pypaimon_table", root.resolve("pypaimon"))
    val path = TestTables.hadoopPath(dir)
    val t = FileStoreTable(TestTables.fileIO, path, "db.p",
      new lamina.table.schema.SchemaManager(TestTables.fileIO, path, "db.p").latest().get)
    val all = scan(t).plan()
    assert(all.map(s => (TestTables.stringPartitionValue(s.partition), s.bucket, s.totalBuckets, s.rowCount)) ===
      Seq(("x", 0, 2, 2L), ("y", 0, 2, 1L), ("z", 0, 2, 1L)))
    for (s <- all; f <- s.files) assert(Files.exists(Paths.get(new org.apache.hadoop.fs.Path(s.bucketPath, f.fileName).toUri)))
    assert(scan(t).plan(Seq(EqualTo("p", "y"))).map(_.rowCount) === Seq(1L))
    // pypaimon records no value stats: nothing is skipped on values
    assert(scan(t).plan(Seq(EqualTo("id", -1))).size === 3)
  }
}
