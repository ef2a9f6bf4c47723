package lamina.table.scan

import java.nio.file.{Files, Path => JPath}

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.{DeletionVector, DeletionVectorsIndexFile}
import lamina.errors.CorruptFileException
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.manifest.{IndexFileMeta, IndexManifestEntry}

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

  /** Runs `body` with snapshot 8's index manifest holding `change` of its entries, then restores it. */
  private def withIndexManifest(change: Seq[IndexManifestEntry] => Seq[IndexManifestEntry])(body: => Unit): Unit = {
    val store = table.manifestStore
    val name = table.snapshotManager.snapshot(8).indexManifest.get
    val path = dir.resolve("manifest").resolve(name)
    val bytes = Files.readAllBytes(path)
    val entries = store.readIndexManifest(name)
    try {
      Files.delete(path)
      Files.deleteIfExists(path.resolveSibling(s".$name.crc"))
      store.writeIndexManifest(name, change(entries))
      body
    } finally {
      Files.deleteIfExists(path.resolveSibling(s".$name.crc"))
      Files.write(path, bytes)
    }
  }

  /** `e` with `more` vector ranges: each a copy of its first range under another data file's name. */
  private def withRanges(e: IndexManifestEntry, more: String*): IndexManifestEntry = {
    val ranges = e.indexFile.dvRanges.get
    val meta: IndexFileMeta = e.indexFile.copy(dvRanges = Some(ranges ++ more.map(n => ranges.head.copy(dataFileName = n))),
      rowCount = e.indexFile.rowCount + more.size)
    e.copy(indexFile = meta)
  }

  private def failure(change: Seq[IndexManifestEntry] => Seq[IndexManifestEntry]): CorruptFileException = {
    var caught: CorruptFileException = null
    withIndexManifest(change) { caught = intercept[CorruptFileException](vectors(8)) }
    caught
  }

  test("a vector of a data file the snapshot no longer holds is ignored, as Paimon's reader ignores it") {
    val good = vectors(8)
    // Paimon's writers may leave the vector of a compacted file in the bucket's index: beside the live
    // files' vectors, or alone in an index file of its own
    val gone = "data-00000000-0000-0000-0000-000000000000-0.parquet"
    withIndexManifest(es => withRanges(es.head, gone) +: es.tail)(assert(vectors(8) === good))
    withIndexManifest(es =>
      es :+ withRanges(es.head, gone).copy(indexFile =
        es.head.indexFile.copy(dvRanges = Some(Seq(es.head.indexFile.dvRanges.get.head.copy(dataFileName = gone))),
          rowCount = 1))) {
      assert(vectors(8) === good)
    }
  }

  test("two vectors for one file, a vector count that disagrees, or an unknown index type is corruption") {
    val name = table.snapshotManager.snapshot(8).indexManifest.get
    def check(e: CorruptFileException, expected: String, actual: String): Unit = {
      assert(e.path === table.manifestStore.manifestPath(name).toString)
      assert(e.expected === expected)
      assert(e.actual.startsWith(actual), e.actual)
    }
    check(failure(es => withRanges(es.head, es.head.indexFile.dvRanges.get.head.dataFileName) +: es.tail),
      "one deletion vector per data file", "two for data-")
    val first = table.manifestStore.readIndexManifest(name).head.indexFile
    check(failure(es => es.head.copy(indexFile = es.head.indexFile.copy(rowCount = first.rowCount + 1)) +: es.tail),
      s"${first.rowCount + 1} deletion vectors in ${first.fileName}", s"${first.rowCount}")
    check(failure(es => es.head.copy(indexFile = es.head.indexFile.copy(indexType = "GLOBAL_INDEX")) +: es.tail),
      "an index type of a table with deletion vectors (DELETION_VECTORS, HASH)", s"GLOBAL_INDEX for ${first.fileName}")
  }

  test("a damaged index manifest fails the plan or the read of a vector, naming the file, or drops a vector; never moves one") {
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
        // a damaged data file name reads as the vector of a file gone, which is left out: the other
        // vectors stay as they were, and no vector moves to another file
        try {
          val got = vectors(8)
          assert(got.forall { case (k, v) => good.get(k).contains(v) }, s"flip at $i")
        } catch {
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
