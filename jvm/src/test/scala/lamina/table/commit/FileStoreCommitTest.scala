package lamina.table.commit

import java.nio.file.{Files, Path => JPath}
import java.util.concurrent.{CountDownLatch, Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.schema.SchemaManager
import lamina.table.snapshot.Snapshot

class FileStoreCommitTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("file-store-commit")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private var n = 0
  private def newTable(options: Map[String, String] = Map.empty): FileStoreTable = {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema(options))
  }

  /** (partition, file name, row count) of every live file at the latest snapshot, sorted; the null
   *  partition reads as "(null)". */
  private def liveFiles(t: FileStoreTable, snapshot: Option[Snapshot] = None): Seq[(String, String, Long)] = {
    val s = snapshot.orElse(t.snapshotManager.latest())
    s.toSeq.flatMap(new FileStoreCommit(t, "reader").liveEntries).map(e =>
      (Option(TestTables.stringPartitionValue(e.partition)).getOrElse("(null)"), e.file.fileName, e.file.rowCount)).sorted
  }

  private def partitionIs(values: String*): InternalRow => Boolean = row =>
    values.contains(if (row.isNullAt(0)) null else row.getUTF8String(0).toString)

  private def manifestFiles(t: FileStoreTable): Set[String] = {
    val d = java.nio.file.Paths.get(t.paths.manifestDir.toUri)
    if (!Files.exists(d)) Set.empty
    else Files.list(d).iterator().asScala.map(_.getFileName.toString).filterNot(_.endsWith(".crc")).toSet
  }

  test("appends create snapshots 1, 2, ... with running record counts") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    assert(c.append(Seq(message("a", file("f1", rows = 3)), message("b", file("f2", rows = 4))), identifier = 7L) === Some(1L))
    assert(c.append(Seq(message("a", file("f3", rows = 5)))) === Some(2L))
    val s1 = t.snapshotManager.snapshot(1)
    val s2 = t.snapshotManager.snapshot(2)
    assert((s1.commitKind, s1.totalRecordCount.get, s1.deltaRecordCount, s1.commitIdentifier, s1.commitUser) ===
      ((Snapshot.Kind.Append, 7L, 7L, 7L, "writer")))
    assert((s2.commitKind, s2.totalRecordCount.get, s2.deltaRecordCount) === ((Snapshot.Kind.Append, 12L, 5L)))
    assert(s2.schemaId === 0L)
    assert(s2.baseManifestListSize === Some(Files.size(java.nio.file.Paths.get(t.paths.manifestPath(s2.baseManifestList).toUri))))
    assert(liveFiles(t, Some(s1)) === Seq(("a", "f1", 3L), ("b", "f2", 4L)))
    assert(liveFiles(t) === Seq(("a", "f1", 3L), ("a", "f3", 5L), ("b", "f2", 4L)))
    val Seq(delta) = t.manifestStore.readList(s2.deltaManifestList)
    assert((delta.numAddedFiles, delta.numDeletedFiles) === ((1L, 0L)))
  }

  test("an append with no files commits nothing") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    assert(c.append(Nil) === None)
    assert(c.append(Seq(message("a"))) === None)
    assert(t.snapshotManager.latestId() === None)
    assert(c.overwrite(Nil, None) === None)
    assert(t.snapshotManager.latestId() === None)
  }

  test("overwrite with a partition filter deletes exactly those partitions' files") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    c.append(Seq(message("a", file("a1")), message("b", file("b1")), message("c", file("c1")), message(null, file("n1"))))
    c.append(Seq(message("b", file("b2")), message("c", file("c2"))))
    assert(c.overwrite(Seq(message("b", file("b3", rows = 1))), Some(partitionIs("b", "c"))) === Some(3L))
    assert(liveFiles(t) === Seq(("(null)", "n1", 10L), ("a", "a1", 10L), ("b", "b3", 1L)))
    val s3 = t.snapshotManager.snapshot(3)
    assert((s3.commitKind, s3.totalRecordCount.get, s3.deltaRecordCount) === ((Snapshot.Kind.Overwrite, 21L, -39L)))
    val Seq(delta) = t.manifestStore.readList(s3.deltaManifestList)
    assert((delta.numAddedFiles, delta.numDeletedFiles) === ((1L, 4L)))
    // the null partition is a partition like any other
    c.overwrite(Nil, Some(partitionIs(null)))
    assert(liveFiles(t) === Seq(("a", "a1", 10L), ("b", "b3", 1L)))
    // snapshots before the overwrite still see their files
    assert(liveFiles(t, Some(t.snapshotManager.snapshot(2))).map(_._2) === Seq("n1", "a1", "b1", "b2", "c1", "c2"))
  }

  test("overwrite without a filter replaces every partition; an empty one truncates the table") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    c.append(Seq(message("a", file("a1")), message("b", file("b1"))))
    c.overwrite(Seq(message("z", file("z1"))), None)
    assert(liveFiles(t) === Seq(("z", "z1", 10L)))
    assert(c.overwrite(Nil, None) === Some(3L))
    assert(liveFiles(t) === Nil)
    assert(t.snapshotManager.snapshot(3).totalRecordCount.get === 0L)
  }

  test("overwritePartitions replaces exactly the given partitions") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    c.append(Seq(message("a", file("a1")), message("b", file("b1")), message("c", file("c1"))))
    val parts = Set("a", "c", "d").map(p => java.nio.ByteBuffer.wrap(TestTables.stringPartition(p)))
    c.overwritePartitions(Seq(message("a", file("a2")), message("d", file("d1"))), parts)
    assert(liveFiles(t) === Seq(("a", "a2", 10L), ("b", "b1", 10L), ("d", "d1", 10L)))
    assert(t.snapshotManager.latest().get.commitKind === Snapshot.Kind.Overwrite)
  }

  test("compaction replaces live files in a COMPACT snapshot") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    c.append(Seq(message("a", file("a1", rows = 2), file("a2", rows = 3))))
    val compact = CommitMessage(TestTables.stringPartition("a"), 0, -1, Nil,
      compactBefore = Seq(file("a1", rows = 2), file("a2", rows = 3)), compactAfter = Seq(file("a3", rows = 5, level = 1)))
    assert(c.append(Seq(compact)) === Some(2L))
    val s = t.snapshotManager.latest().get
    assert((s.commitKind, s.totalRecordCount.get, s.deltaRecordCount) === ((Snapshot.Kind.Compact, 5L, 0L)))
    assert(liveFiles(t) === Seq(("a", "a3", 5L)))
  }

  test("a DELETE of a file that is no longer live is a conflict and commits nothing") {
    val t = newTable()
    val c = new FileStoreCommit(t, "writer")
    c.append(Seq(message("a", file("a1")), message("b", file("b1"))))
    // a compaction planned at snapshot 1, then an overwrite of partition a lands first
    val compact = CommitMessage(TestTables.stringPartition("a"), 0, -1, Nil,
      compactBefore = Seq(file("a1")), compactAfter = Seq(file("a9", level = 1)))
    c.overwrite(Seq(message("a", file("a2"))), Some(partitionIs("a")))
    val before = manifestFiles(t)
    val e = intercept[CommitConflictException](c.append(Seq(compact)))
    assert(e.getMessage === "Commit to table db.t conflicts with a concurrent commit: file a1 (bucket 0) was already " +
      "deleted or replaced. Retry the operation.")
    assert(t.snapshotManager.latestId() === Some(2L))
    assert(manifestFiles(t) === before)
    assert(liveFiles(t) === Seq(("a", "a2", 10L), ("b", "b1", 10L)))
    // the same file in another partition or bucket is another file
    val wrongBucket = compact.copy(bucket = 1, compactBefore = Seq(file("a2")))
    intercept[CommitConflictException](c.append(Seq(wrongBucket)))
    val e2 = intercept[CommitConflictException](new FileStoreCommit(newTable(), "w").append(Seq(compact)))
    assert(e2.getMessage.contains("file a1 (bucket 0) was already deleted"))
  }

  test("manifest merging kicks in past manifest.merge-min-count; the live set is unchanged") {
    val t = newTable(Map("manifest.merge-min-count" -> "3"))
    val plain = newTable()
    val model = scala.collection.mutable.ArrayBuffer.empty[(String, String, Long)]
    var merged = 0
    for (i <- 1 to 8) {
      val msgs = Seq(message(s"p${i % 3}", file(s"f$i", rows = i.toLong)))
      new FileStoreCommit(t, "w").append(msgs)
      new FileStoreCommit(plain, "w").append(msgs)
      if (i == 5) {
        new FileStoreCommit(t, "w").overwrite(Nil, Some(partitionIs("p1")))
        new FileStoreCommit(plain, "w").overwrite(Nil, Some(partitionIs("p1")))
        model --= model.filter(_._1 == "p1")
      }
      model += ((s"p${i % 3}", s"f$i", i.toLong))
      val s = t.snapshotManager.latest().get
      val base = t.manifestStore.readList(s.baseManifestList)
      val referenced = base.size + t.manifestStore.readList(s.deltaManifestList).size
      assert(referenced <= 3, s"after commit $i")
      if (base.size == 1 && s.id > 2) {
        merged += 1
        assert(base.head.numDeletedFiles === 0L)
      }
      assert(liveFiles(t) === model.sorted, s"after commit $i")
      assert(liveFiles(plain) === model.sorted)
    }
    assert(merged >= 2)
    val ps = plain.snapshotManager.latest().get
    assert(plain.manifestStore.readList(ps.baseManifestList).size === ps.id - 1)
    // every older snapshot still reads the same live set in both tables
    for (id <- 1L to ps.id)
      assert(liveFiles(t, Some(t.snapshotManager.snapshot(id))) === liveFiles(plain, Some(plain.snapshotManager.snapshot(id))))
  }

  test("several threads appending at once: every snapshot lands and every file is live exactly once") {
    val t = newTable(Map("commit.max-retries" -> "1000"))
    val threads = 4
    val perThread = 5
    val pool = Executors.newFixedThreadPool(threads)
    implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(pool)
    val start = new CountDownLatch(1)
    try {
      val work = (0 until threads).map { w =>
        Future {
          start.await()
          val c = new FileStoreCommit(t, s"writer-$w")
          (0 until perThread).map { i =>
            c.append(Seq(message(s"p$w", file(s"w$w-$i-a", rows = 1)), message("shared", file(s"w$w-$i-b", rows = 2)))).get
          }
        }
      }
      start.countDown()
      val ids = Await.result(Future.sequence(work), 120.seconds).flatten
      val total = threads * perThread
      assert(ids.sorted === (1L to total.toLong))
      assert(t.snapshotManager.listIds() === (1L to total.toLong))
      val live = liveFiles(t)
      assert(live.size === 2 * total)
      assert(live.map(_._2).distinct.size === live.size)
      assert(live.map(_._2).toSet === (for (w <- 0 until threads; i <- 0 until perThread; s <- Seq("a", "b")) yield s"w$w-$i-$s").toSet)
      val last = t.snapshotManager.latest().get
      assert(last.totalRecordCount.get === 3L * total)
      // each snapshot's delta is exactly one writer's commit
      for (id <- 1L to total.toLong) {
        val s = t.snapshotManager.snapshot(id)
        val delta = t.manifestStore.readAllEntries(Seq(s.deltaManifestList)).toSeq
        assert(delta.size === 2)
        assert(delta.map(_.file.fileName.takeWhile(_ != '-')).distinct.size === 1)
        assert(s.totalRecordCount.get === 3L * id)
      }
    } finally {
      pool.shutdownNow()
      pool.awaitTermination(10, TimeUnit.SECONDS)
    }
  }

  test("commits on top of a table pypaimon wrote") {
    val dir: JPath = TestTables.copyFixture("pypaimon_table", root.resolve("pypaimon"))
    val path = TestTables.hadoopPath(dir)
    val t = FileStoreTable(TestTables.fileIO, path, "db.p", new SchemaManager(TestTables.fileIO, path, "db.p").latest().get)
    val before = liveFiles(t)
    assert(before.map(f => (f._1, f._3)) === Seq(("x", 2L), ("y", 1L), ("z", 1L)))
    val c = new FileStoreCommit(t, "lamina")
    assert(c.append(Seq(CommitMessage(TestTables.stringPartition("x"), 1, 2, Seq(file("lamina-1"))))) === Some(3L))
    assert(liveFiles(t) === (before :+ (("x", "lamina-1", 10L))).sorted)
    assert(t.snapshotManager.snapshot(3).totalRecordCount.get === 14L)
    c.overwrite(Nil, Some(partitionIs("x")))
    assert(liveFiles(t).map(f => (f._1, f._3)) === Seq(("y", 1L), ("z", 1L)))
    assert(t.snapshotManager.snapshot(4).totalRecordCount.get === 2L)
  }
}
