package lamina.table.snapshot

import scala.util.Random

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables

class ChangelogManagerTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("changelog-manager")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)
  private var n = 0

  private def manager(): ChangelogManager = {
    n += 1
    new ChangelogManager(TestTables.fileIO, TestTables.hadoopPath(root.resolve(s"t$n")))
  }

  private def snapshot(id: Long) = Snapshot(
    id = id, schemaId = 0, baseManifestList = s"manifest-list-$id-0", baseManifestListSize = Some(10L),
    deltaManifestList = s"manifest-list-$id-1", deltaManifestListSize = Some(11L),
    changelogManifestList = Some(s"manifest-list-$id-2"), changelogManifestListSize = Some(12L), indexManifest = None,
    commitUser = "u", commitIdentifier = id, commitKind = Snapshot.Kind.Append, timeMillis = 1000L + id,
    totalRecordCount = Some(id), deltaRecordCount = 1L, changelogRecordCount = Some(1L), watermark = None)

  test("a changelog's JSON is its snapshot's, field for field, and round-trips") {
    val c = Changelog(snapshot(7))
    assert(c.toJson === snapshot(7).toJson)
    assert(Changelog.fromJson(c.toJson, "mem/changelog-7", 7) === c)
  }

  test("changelog-<id> files with LATEST and EARLIEST hints; the listing wins over a hint naming a gone file") {
    val m = manager()
    assert(m.listIds().isEmpty && m.latestId().isEmpty && m.earliestId().isEmpty && m.read(1).isEmpty)
    (1L to 3L).foreach(id => m.commit(Changelog(snapshot(id))))
    assert(m.dir.getName === "changelog" && m.path(2).getName === "changelog-2")
    assert(m.listIds() === Seq(1L, 2L, 3L) && m.latestId() === Some(3L) && m.earliestId() === Some(1L))
    assert(TestTables.fileIO.readUtf8(new org.apache.hadoop.fs.Path(m.dir, "LATEST")) === "3")
    m.delete(1)
    m.commitEarliestHint(1) // a hint that lags
    assert(m.earliestId() === Some(2L))
    m.commitLatestHint(2)
    assert(m.latestId() === Some(3L))
    assert(m.all().map(_.id) === Seq(2L, 3L))
    m.deleteHints()
    assert(m.latestId() === Some(3L) && m.earliestId() === Some(2L))
  }

  test("every damaged byte of a changelog file is corruption naming the file, or a file that still reads the same") {
    val m = manager()
    val c = Changelog(snapshot(4))
    val text = c.toJson.getBytes("UTF-8")
    val random = new Random(42)
    for (_ <- 1 to 200) {
      val bytes = text.clone()
      val at = random.nextInt(bytes.length)
      bytes(at) = (bytes(at) ^ (1 << random.nextInt(7))).toByte
      TestTables.fileIO.writeBytes(m.path(4), bytes)
      try {
        // a flipped byte in whitespace or in a value's digits may still parse: then it reads as written
        val read = m.read(4).get
        assert(read.id === 4L)
      } catch {
        case e: CorruptFileException => assert(e.getMessage.startsWith(s"Corrupt file ${m.path(4)} at offset "))
      }
    }
  }

  test("a file whose id is not its name's is corruption") {
    val m = manager()
    TestTables.fileIO.writeBytes(m.path(5), Changelog(snapshot(6)).toJson.getBytes("UTF-8"))
    val e = intercept[CorruptFileException](m.read(5))
    assert(e.getMessage === s"Corrupt file ${m.path(5)} at offset 0: expected changelog id 5, as its name says, found 6")
  }
}
