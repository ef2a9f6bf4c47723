package lamina.table.commit

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.TestTables.{file, message}

class FileStoreCommitChangelogTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("commit-changelog")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  test("an append lists its changelog files in the snapshot's changelog manifest list, and only there") {
    val t = TestTables.createTable(root.resolve("t"), TestTables.eventsSchema())
    val c = new FileStoreCommit(t, "writer")
    c.append(Seq(message("a", file("data-1")).copy(changelogFiles = Seq(file("changelog-1", rows = 4))),
        message("b", file("data-2")).copy(changelogFiles = Seq(file("changelog-2", rows = 6)))))
    c.append(Seq(message("a", file("data-3"))))
    val s1 = t.snapshotManager.snapshot(1)
    val s2 = t.snapshotManager.snapshot(2)
    assert(s1.changelogRecordCount === Some(10L))
    assert(s1.changelogManifestList.exists(_.endsWith("-2")) && s1.changelogManifestListSize.exists(_ > 0))
    val entries = t.manifestStore.readList(s1.changelogManifestList.get)
      .flatMap(m => t.manifestStore.readManifest(m.fileName))
    assert(entries.map(e => (e.isAdd, e.file.fileName)).sorted === Seq((true, "changelog-1"), (true, "changelog-2")))
    assert(new FileStoreCommit(t, "reader").liveEntries(s2).map(_.file.fileName).sorted ===
      Seq("data-1", "data-2", "data-3"))
    assert((s2.changelogManifestList, s2.changelogRecordCount) === ((None, Some(0L))))
  }
}
