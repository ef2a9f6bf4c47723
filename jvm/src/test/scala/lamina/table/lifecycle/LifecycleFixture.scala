package lamina.table.lifecycle

import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path

import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, message, stringPartition}
import lamina.table.commit.{CommitMessage, FileStoreCommit}
import lamina.table.manifest.DataFileMeta

/** A table with six snapshots whose data files exist on disk (empty), for lifecycle tests:
 *  1 adds a1; 2 adds a2; 3 overwrites partition a with a3 (a1, a2 gone); 4 adds b1;
 *  5 compacts a3 into a5; 6 adds b2. */
final class LifecycleFixture(val table: FileStoreTable) {
  private val files = Map.empty[String, DataFileMeta] ++ Seq("a1", "a2", "a3", "a5", "b1", "b2").map(n => n -> file(n, rows = 1))

  def dataPath(name: String): Path =
    new Path(table.paths.bucketDir(table.manifestStore.decodePartition(stringPartition(name.take(1))), 0), name)

  def exists(name: String): Boolean = table.fileIO.exists(dataPath(name))

  /** The data files that exist, sorted. */
  def dataFiles: Seq[String] = files.keys.toSeq.filter(exists).sorted

  /** The files of manifest/ that exist. */
  def manifestDir: Set[String] = {
    val d = Paths.get(table.paths.manifestDir.toUri)
    Files.list(d).iterator().asScala.map(_.getFileName.toString).filterNot(_.startsWith(".")).toSet
  }

  /** The manifest/ files that the snapshots (or tags' snapshots) `ids` refer to. */
  def referencedMetadata(ids: Long*): Set[String] =
    ids.flatMap(id => new FileReferences(table).metadataFiles(table.snapshotManager.snapshot(id), strict = true))
      .map(_.getName).toSet

  def snapshotIds: Seq[Long] = table.snapshotManager.listIds()

  def hint(name: String): String = table.fileIO.readUtf8(new Path(table.snapshotManager.dir, name)).trim

  /** Live data file names of snapshot `id` (from its file or a tag). */
  def live(id: Long): Seq[String] =
    table.snapshotEntries.live(table.snapshotManager.snapshot(id)).map(_.file.fileName).sorted

  private def touch(names: String*): Unit = names.foreach(n => table.fileIO.writeBytes(dataPath(n), Array.emptyByteArray))

  def build(): this.type = {
    val c = new FileStoreCommit(table, "writer")
    def add(n: String) = { touch(n); c.append(Seq(message(n.take(1), files(n)))) }
    add("a1")
    add("a2")
    touch("a3")
    c.overwrite(Seq(message("a", files("a3"))), Some(row => row.getUTF8String(0).toString == "a"))
    add("b1")
    touch("a5")
    c.append(Seq(CommitMessage(stringPartition("a"), 0, -1, Nil, compactBefore = Seq(files("a3")),
          compactAfter = Seq(files("a5").copy(level = 1)))))
    add("b2")
    assert(snapshotIds == (1L to 6L))
    this
  }
}

object LifecycleFixture {
  private var n = 0
  private lazy val root = TestTables.tempDir("lifecycle")

  def apply(): LifecycleFixture = synchronized {
    n += 1
    new LifecycleFixture(TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema())).build()
  }
}
