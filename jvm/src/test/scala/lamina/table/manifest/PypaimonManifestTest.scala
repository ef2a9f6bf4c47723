package lamina.table.manifest

import java.nio.file.{Files, Path => JPath}

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.{FileStoreTable, TestTables}
import lamina.table.options.ManifestCompression
import lamina.types.VarCharType

/** Reads the manifests and manifest lists of a table pypaimon wrote (see
 *  tests/fixtures/gen_table_fixtures.py): (id INT, v STRING, p STRING) partitioned by p, 2 buckets;
 *  snapshot 1 appends 2 rows to p=x and 2 to p=y, snapshot 2 overwrites p=y with 1 row and adds 1 to p=z. */
class PypaimonManifestTest extends AnyFunSuite with BeforeAndAfterAll {
  import ManifestCodecTest.canon

  private val tmp = TestTables.tempDir("pypaimon-manifest")
  private val dir: JPath = TestTables.copyFixture("pypaimon_table", tmp)
  private val table: FileStoreTable = TestTables.openTable(dir, "db.t")
  override def afterAll(): Unit = TestTables.deleteRecursively(tmp)

  private val store = table.manifestStore
  private val snapshots = table.snapshotManager

  private def partitionOf(e: ManifestEntry): String = store.decodePartition(e.partition).getUTF8String(0).toString

  private def dataFile(e: ManifestEntry): JPath =
    dir.resolve(s"p=${partitionOf(e)}").resolve(s"bucket-${e.bucket}").resolve(e.file.fileName)

  test("the fixture table: schema, two snapshots") {
    assert(table.schema.partitionKeys === Seq("p"))
    assert(table.numBuckets === 2)
    assert(table.schema.bucketKeys === Seq("id"))
    assert(table.schema.partitionTypes === Seq(VarCharType.string()))
    assert(snapshots.listIds() === Seq(1L, 2L))
    assert(snapshots.latestId() === Some(2L))
    assert(snapshots.earliestId() === Some(1L))
  }

  test("manifest list of snapshot 1: one manifest with three ADDs, partition stats x..y") {
    val s1 = snapshots.snapshot(1)
    assert(store.readList(s1.baseManifestList) === Nil)
    val Seq(m) = store.readList(s1.deltaManifestList)
    assert(m.fileName.startsWith("manifest-"))
    assert(m.fileSize === Files.size(dir.resolve("manifest").resolve(m.fileName)))
    assert((m.numAddedFiles, m.numDeletedFiles, m.schemaId) === ((3L, 0L, 0L)))
    assert((m.minBucket, m.maxBucket, m.minLevel, m.maxLevel) === ((Some(0), Some(1), Some(0), Some(0))))
    assert(canon(m.partitionStats.minValues) === canon(TestTables.stringPartition("x")))
    assert(canon(m.partitionStats.maxValues) === canon(TestTables.stringPartition("y")))
    assert(m.partitionStats.nullCounts === Seq(Some(0L)))
  }

  test("manifest entries of snapshot 1 name the data files on disk with their sizes") {
    val s1 = snapshots.snapshot(1)
    val entries = store.readAllEntries(Seq(s1.baseManifestList, s1.deltaManifestList)).toSeq
    assert(entries.size === 3)
    assert(entries.forall(_.isAdd))
    assert(entries.map(e => (partitionOf(e), e.bucket, e.file.rowCount)).sorted ===
      Seq(("x", 0, 2L), ("y", 0, 1L), ("y", 1, 1L)))
    for (e <- entries) {
      assert(e.totalBuckets === 2)
      assert(e.file.fileFormat === "parquet")
      assert(e.file.fileSize === Files.size(dataFile(e)), e.file.fileName)
      assert((e.file.level, e.file.schemaId, e.file.minSequenceNumber) === ((0, 0L, 1L)))
      assert(e.file.valueStatsCols === Some(Nil))
      assert(e.file.fileSource === Some(DataFileMeta.FileSourceAppend))
      assert(e.file.creationTimeMillis.exists(_ > 0))
      assert(e.file.deleteRowCount === Some(0L))
    }
    assert(entries.map(_.file.rowCount).sum === s1.totalRecordCount.get)
  }

  test("snapshot 2: the overwrite DELETEs both files of p=y; the live set is x, the new y and z") {
    val s2 = snapshots.snapshot(2)
    val Seq(delta) = store.readList(s2.deltaManifestList)
    assert((delta.numAddedFiles, delta.numDeletedFiles) === ((2L, 2L)))
    val deltaEntries = store.readManifest(delta.fileName)
    assert(deltaEntries.filterNot(_.isAdd).map(partitionOf) === Seq("y", "y"))
    val live = ManifestEntry.mergeLive(store.readAllEntries(Seq(s2.baseManifestList, s2.deltaManifestList)))
    assert(live.map(e => (partitionOf(e), e.file.rowCount)).sorted === Seq(("x", 2L), ("y", 1L), ("z", 1L)))
    assert(live.map(_.file.rowCount).sum === s2.totalRecordCount.get)
    live.foreach(e => assert(Files.exists(dataFile(e)), e.file.fileName))
    val deleted = deltaEntries.filterNot(_.isAdd).map(_.identifier).toSet
    assert(live.forall(e => !deleted.contains(e.identifier)))
  }

  test("pypaimon's records survive Lamina's re-encoding unchanged") {
    val s2 = snapshots.snapshot(2)
    val entries = store.readAllEntries(Seq(s2.baseManifestList, s2.deltaManifestList)).toSeq
    val schema = ManifestEntry.AvroSchema
    val bytes = AvroFiles.encode(schema, entries.iterator.map(_.toAvro(schema)), ManifestCompression.Zstd)
    val path = TestTables.hadoopPath(tmp.resolve("re-encoded"))
    TestTables.fileIO.writeBytes(path, bytes)
    assert(canon(AvroFiles.read(TestTables.fileIO, path).map(ManifestEntry.fromAvro)) === canon(entries))
  }
}
