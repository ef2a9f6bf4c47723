package lamina.table.commit

import java.nio.file.{Files, Paths}

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.format.BinaryRowCodec
import lamina.table.{FileStoreTable, TempTables, TestTables}
import lamina.table.TestTables.file
import lamina.table.manifest.IndexFileMeta

/** [[UncommittedFiles]]: a commit that did not land removes only the files its messages created,
 *  never an input a compaction kept under its own name (a level-0 file upgraded in place), never a
 *  carried-over index file, never a file the latest snapshot references. */
class UncommittedFilesTest extends AnyFunSuite with TempTables {

  private def table(): FileStoreTable = newTable(TestTables.eventsSchema(partitioned = false))

  private def dataFile(t: FileStoreTable, name: String) =
    Paths.get(new Path(t.paths.bucketDir(InternalRow.empty, 0), name).toUri)

  private def create(t: FileStoreTable, names: String*): Unit = names.foreach { n =>
    val p = dataFile(t, n)
    Files.createDirectories(p.getParent)
    Files.write(p, Array[Byte](1))
  }

  private val noPartition = BinaryRowCodec.serialize(InternalRow.empty, Seq.empty)

  private def index(name: String) = IndexFileMeta("DELETION_VECTORS", name, 1L, 0L, None, None)

  test("createdFiles leaves out an output that keeps an input's name; createdIndexFiles the carried-over index") {
    val upgraded = file("data-a-0.parquet", level = 0)
    val m = CommitMessage(noPartition, 0, 1, Seq(file("data-new-0.parquet")),
      compactBefore = Seq(upgraded, file("data-b-0.parquet")),
      compactAfter = Seq(upgraded.copy(level = 5), file("data-c-0.parquet", level = 5)),
      indexChange = Some(IndexChange(Set("index-old-0"), Seq(index("index-old-0"), index("index-new-0")))),
      changelogFiles = Seq(file("changelog-x-0.parquet")), compactChangelog = Seq(file("changelog-y-0.parquet")))
    assert(m.createdFiles.map(_.fileName).toSet ===
      Set("data-new-0.parquet", "data-c-0.parquet", "changelog-x-0.parquet", "changelog-y-0.parquet"))
    assert(m.createdIndexFiles.map(_.fileName) === Seq("index-new-0"))
  }

  test("discard removes the created files and keeps the upgraded input and what the latest snapshot holds") {
    val t = table()
    val committed = CommitMessage(noPartition, 0, 1, Seq(file("data-a-0.parquet"), file("data-live-0.parquet")))
    assert(new FileStoreCommit(t, "w").append(Seq(committed)).isDefined)
    create(t, "data-a-0.parquet", "data-live-0.parquet", "data-out-0.parquet")
    val upgraded = file("data-a-0.parquet")
    // a losing compaction: upgrades data-a in place, and (impossibly, but defended) names a live file as new
    val loser = CommitMessage(noPartition, 0, 1, Seq.empty, compactBefore = Seq(upgraded),
      compactAfter = Seq(upgraded.copy(level = 5), file("data-out-0.parquet", level = 5), file("data-live-0.parquet")))
    UncommittedFiles.discard(t, Seq(loser))
    assert(Files.exists(dataFile(t, "data-a-0.parquet")))
    assert(Files.exists(dataFile(t, "data-live-0.parquet")))
    assert(!Files.exists(dataFile(t, "data-out-0.parquet")))
  }
}
