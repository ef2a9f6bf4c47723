package lamina.table.lifecycle

import org.apache.hadoop.fs.Path
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{BadInputException, CorruptFileException}
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit
import lamina.table.consumer.{Consumer, ConsumerManager}
import lamina.table.scan.{ChangeScan, ChangeSource}
import lamina.table.snapshot.Changelog

class ChangelogExpirationTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("changelog-expiration")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)
  private var n = 0
  private val later = System.currentTimeMillis() + 60000
  private def keepLast(k: Int) = RetentionPolicy(k, Int.MaxValue, 0L, 50)

  private val Options = Map("changelog-producer" -> "input", "snapshot.num-retained.min" -> "1",
    "snapshot.num-retained.max" -> "2",
    "changelog.num-retained.max" -> "4")

  /** Six appends, each of data file d<i> and changelog file c<i> (existing, empty) in partition a. */
  private def table(options: Map[String, String] = Options): FileStoreTable = {
    n += 1
    val t = TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema(options))
    val c = new FileStoreCommit(t, "writer")
    (1 to 6).foreach { i =>
      Seq(s"d$i", s"c$i").foreach(f => t.fileIO.writeBytes(path(t, f), Array.emptyByteArray))
      c.append(Seq(message("a", file(s"d$i")).copy(changelogFiles = Seq(file(s"c$i", rows = 2)))))
    }
    t
  }

  private def path(t: FileStoreTable, name: String): Path =
    new Path(t.paths.bucketDir(t.manifestStore.decodePartition(TestTables.stringPartition("a")), 0), name)

  private def changelogFilesLeft(t: FileStoreTable): Seq[String] =
    (1 to 6).map(i => s"c$i").filter(f => t.fileIO.exists(path(t, f)))

  private def readable(t: FileStoreTable, id: Long): Boolean =
    new ChangeScan(t).changes(id).exists(s => new ChangeScan(t).changesOf(s, ChangeSource.Changelog).nonEmpty)

  test("snapshot expiration keeps the changelogs as changelog/changelog-<id>; changelog expiration removes them later") {
    val t = table()
    val snapshots = (1L to 4L).map(t.snapshotManager.snapshot)
    assert(new SnapshotExpiration(t).expire(keepLast(2), later) === 4)
    assert(t.snapshotManager.listIds() === Seq(5L, 6L))
    assert(t.changelogManager.listIds() === (1L to 4L))
    assert(t.changelogManager.latestId() === Some(4L))
    assert((1L to 4L).map(id => t.changelogManager.read(id).get.snapshot) === snapshots)
    assert(changelogFilesLeft(t) === (1 to 6).map(i => s"c$i"))
    assert((1L to 6L).forall(readable(t, _)))
    // the expired snapshots' delta manifest lists went, their changelog manifest lists stayed
    assert(snapshots.forall(s => !t.fileIO.exists(t.manifestStore.manifestPath(s.deltaManifestList))))
    assert(snapshots.forall(s => t.fileIO.exists(t.manifestStore.manifestPath(s.changelogManifestList.get))))
    val splits = new ChangeScan(t).between(0, 6, ChangeSource.Changelog)
    assert(splits.flatMap(_.files.map(_.fileName)) === (1 to 6).map(i => s"c$i"))

    // changelog.num-retained.max 4 (changelogs of snapshots 3 to 6 stay), all within the time retained
    assert(new ChangelogExpiration(t).expire(RetentionPolicy.ofChangelog(t.options, timeRetainedMillis = Some(3600000L)),
      later) === 2)
    assert(t.changelogManager.listIds() === Seq(3L, 4L))
    assert(t.changelogManager.earliestId() === Some(3L))
    assert(changelogFilesLeft(t) === (3 to 6).map(i => s"c$i"))
    assert(snapshots.take(2).forall(s => !t.fileIO.exists(t.manifestStore.manifestPath(s.changelogManifestList.get))))
    assert(!readable(t, 2) && readable(t, 3))
  }

  test("after each commit: changelogs kept by the options, then expired by them") {
    val t = table(Options ++ Map("snapshot.time-retained" -> "0 s", "changelog.time-retained" -> "1 h"))
    SnapshotExpiration.afterCommit(t)
    // snapshots past their (zero) time go down to num-retained.min; changelogs of the latest four ids stay
    assert(t.snapshotManager.listIds() === Seq(6L))
    assert(t.changelogManager.listIds() === Seq(3L, 4L, 5L))
  }

  test("without outliving options a changelog expires with its snapshot") {
    val t = table(Map("changelog-producer" -> "input"))
    new SnapshotExpiration(t).expire(keepLast(2), later)
    assert(t.changelogManager.listIds().isEmpty)
    assert(changelogFilesLeft(t) === Seq("c5", "c6"))
  }

  test("a consumer keeps the changelogs it still needs") {
    assert(ChangelogExpiration.firstRetained(keepLast(1), 1, 4, 6, consumedFrom = 2, later, _ => Some(0L)) === 2)
    assert(ChangelogExpiration.firstRetained(keepLast(1), 1, 4, 6, consumedFrom = Long.MaxValue, later, _ => Some(0L)) === 4)
    // within the time retained nothing goes
    val now = 1000L
    assert(ChangelogExpiration.firstRetained(RetentionPolicy(1, Int.MaxValue, 500L, 50), 1, 4, 6, Long.MaxValue, now,
      id => Some(400L + id * 100)) === 1)
  }

  test("a consumer holds back snapshot and changelog expiration; with consumer.changelog-only only the latter") {
    val policy = RetentionPolicy(1, 2, 0L, 50)
    val t = table()
    ConsumerManager.of(t).reset("c", Consumer(nextSnapshot = 2))
    new SnapshotExpiration(t).expire(policy, later)
    assert(t.snapshotManager.listIds() === (2L to 6L) && t.changelogManager.listIds() === Seq(1L))
    val only = table(Options + ("consumer.changelog-only" -> "true"))
    ConsumerManager.of(only).reset("c", Consumer(nextSnapshot = 2))
    new SnapshotExpiration(only).expire(policy, later)
    assert(only.snapshotManager.listIds() === Seq(6L))
    new ChangelogExpiration(only).expire(RetentionPolicy(1, 1, 0L, 50), later)
    assert(only.changelogManager.listIds() === (2L to 5L))
  }

  test("a damaged or misnamed changelog file is reported naming it") {
    val t = table()
    new SnapshotExpiration(t).expire(keepLast(2), later)
    val cl = t.changelogManager
    t.fileIO.overwriteUtf8(cl.path(2), "{\"id\": ")
    val e = intercept[CorruptFileException](cl.read(2))
    assert(e.getMessage.contains(cl.path(2).toString))
    t.fileIO.overwriteUtf8(cl.path(3), cl.read(4).get.toJson)
    val e2 = intercept[CorruptFileException](cl.read(3))
    assert(e2.getMessage.contains(cl.path(3).toString) && e2.getMessage.contains("changelog id 3, as its name says"))
    assert(Changelog.fromJson(cl.read(4).get.toJson, "x", 4) === cl.read(4).get)
    // a kept changelog whose changelog manifest list is gone: the read names that file
    val list = cl.read(4).get.snapshot.changelogManifestList.get
    t.fileIO.delete(t.manifestStore.manifestPath(list), false)
    val e3 = intercept[Exception](new ChangeScan(t).between(3, 4, ChangeSource.Changelog))
    assert(e3.getMessage.contains(list))
  }

  test("orphan-file removal, tag deletion and rollback keep what kept changelogs use; delete_all removes them") {
    val t = table()
    Tags.create(t, "t1", Some(1L), None)
    new SnapshotExpiration(t).expire(keepLast(2), later)
    Tags.delete(t, "t1")
    assert(changelogFilesLeft(t) === (1 to 6).map(i => s"c$i"))
    new OrphanFiles(t).remove(later, dryRun = false)
    assert(changelogFilesLeft(t) === (1 to 6).map(i => s"c$i"))
    assert((1L to 6L).forall(readable(t, _)))

    val e = intercept[BadInputException] {
      t.changelogManager.commit(Changelog(t.snapshotManager.snapshot(5)))
      new ChangelogExpiration(t).expireAll()
    }
    assert(e.getMessage === s"Table ${t.name}: kept changelog 5 is not below the earliest snapshot 5; check the table")
    t.changelogManager.delete(5)
    t.changelogManager.commitLatestHint(4)
    assert(new ChangelogExpiration(t).expireAll() === 4)
    assert(t.changelogManager.listIds().isEmpty && t.changelogManager.latestId().isEmpty)
    assert(changelogFilesLeft(t) === Seq("c5", "c6"))
  }

  test("rolling back to a tag of an expired snapshot removes the later kept changelogs") {
    val t = table()
    Tags.create(t, "t2", Some(2L), None)
    new SnapshotExpiration(t).expire(keepLast(2), later)
    Rollback.to(t, "t2")
    // the target's own changelog stays, as in Paimon
    assert(t.changelogManager.listIds() === Seq(1L, 2L))
    assert(t.changelogManager.latestId() === Some(2L))
    assert(changelogFilesLeft(t) === Seq("c1", "c2"))
  }
}
