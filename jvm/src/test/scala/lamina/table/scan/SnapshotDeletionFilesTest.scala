package lamina.table.scan

import java.nio.file.{Files, Path => JPath}

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.{DeletionVector, DeletionVectorsIndexFile}
import lamina.errors.CorruptFileException
import lamina.table.{FileStoreTable, TestTables}

/** Plans reads of a primary-key table with deletion vectors that Paimon 1.4.2's connector wrote
 *  (fixtures/paimon_dv_table, data files left out: planning and vectors need none): (id INT, v STRING,
 *  n INT), primary key id, 2 buckets, `deletion-vectors.enabled`; snapshots 7 (APPEND, an UPDATE) and
 *  8 (its COMPACT). */
class SnapshotDeletionFilesTest extends AnyFunSuite with BeforeAndAfterAll {
  private val tmp = TestTables.tempDir("paimon-dv")
  private val dir: JPath = TestTables.copyFixture("paimon_dv_table", tmp)
  private val table: FileStoreTable = TestTables.openTable(dir, "db.pk")
  override def afterAll(): Unit = TestTables.deleteRecursively(tmp)

  /** For each split, each data file's deleted positions, read through the planned deletion files. */
  private def vectors(snapshotId: Long): Map[(Int, String), DeletionVector] = {
    val splits = new FileStoreScan(table, table.snapshotManager.snapshot(snapshotId)).plan()
    splits.flatMap { s =>
      s.deletionFiles.map { case (f, d) =>
        assert(s.files.exists(_.fileName == f))
        (s.bucket, f) -> DeletionVectorsIndexFile.read(table.fileIO, d)
      }
    }.toMap
  }

  test("each split carries the vectors of its own files, as the snapshot's index manifest lists them") {
    val latest = vectors(8)
    assert(latest.keySet === Set(0 -> "data-a8426581-28f2-4ea3-a6af-a1aa5dfc5134-0.parquet",
      1 -> "data-069dd6ce-92e2-444c-9089-8886525aace2-0.parquet", 1 -> "data-71f3a81d-bd09-408a-ba1d-ef6913b415ae-0.parquet"))
    assert(latest.values.map(_.cardinality).toSeq.sorted === Seq(3L, 3L, 12L))
    // time travel reads the vectors of the snapshot read, never the latest ones
    assert(vectors(7) !== latest)
  }

  test("a damaged index manifest fails the plan or the read of a vector, naming the file; never other vectors") {
    val good = vectors(8)
    val name = table.snapshotManager.snapshot(8).indexManifest.get
    val path = dir.resolve("manifest").resolve(name)
    val bytes = Files.readAllBytes(path)
    var failures = 0
    try {
      bytes.indices.foreach { i =>
        val bad = bytes.clone()
        bad(i) = (bad(i) ^ 0x08).toByte
        Files.write(path, bad)
        try assert(vectors(8) === good, s"flip at $i")
        catch {
          case e: CorruptFileException =>
            failures += 1
            assert(e.path === table.manifestStore.manifestPath(name).toString || e.path.contains("/paimon_dv_table/index/"),
              s"flip at $i: ${e.getMessage}")
        }
      }
    } finally Files.write(path, bytes)
    assert(failures > bytes.length / 2)
  }
}
