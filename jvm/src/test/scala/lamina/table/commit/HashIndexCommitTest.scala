package lamina.table.commit

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, stringPartition}
import lamina.table.bucket.{HashIndexChange, HashIndexFile}
import lamina.table.manifest.IndexFileMeta

/** Commits of dynamic buckets' hash indexes ([[IndexManifestUpdate]]): a bucket's new index replaces
 *  its old one, a partition whose index changed since a write read it is a conflict, an overwrite drops
 *  the index of the partitions it replaces. */
class HashIndexCommitTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("hash-index-commit")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  private var n = 0
  private def newTable(): FileStoreTable = {
    n += 1
    TestTables.createTable(root.resolve(s"t$n"), TestTables.eventsSchema())
  }

  private def index(t: FileStoreTable, hashes: Int*): IndexFileMeta = HashIndexFile.write(t, hashes.toArray)

  private def msg(p: String, bucket: Int, data: String, change: HashIndexChange) =
    CommitMessage(stringPartition(p), bucket, -1, Seq(file(data)), hashIndex = Some(change))

  /** (partition, bucket, hashes) of every hash index of the latest snapshot, sorted. */
  private def hashIndexes(t: FileStoreTable): Seq[(String, Int, Seq[Int])] =
    t.snapshotManager.latest().flatMap(_.indexManifest).map(t.manifestStore.readIndexManifest).getOrElse(Seq.empty)
      .map(e => (TestTables.stringPartitionValue(e.partition), e.bucket, HashIndexFile.read(t, e.indexFile).toSeq))
      .sortBy(e => (e._1, e._2))

  test("a bucket's new index replaces the one the write read; other partitions' stay") {
    val t = newTable()
    val a0 = index(t, 1, 2)
    val b0 = index(t, 7)
    new FileStoreCommit(t, "w").append(Seq(msg("a", 0, "f1", HashIndexChange(Set.empty, Set.empty, a0)),
        msg("b", 0, "f2", HashIndexChange(Set.empty, Set.empty, b0))))
    val a0b = index(t, 1, 2, 3)
    val a1 = index(t, 4)
    new FileStoreCommit(t, "w").append(Seq(msg("a", 0, "f3", HashIndexChange(Set(a0.fileName), Set(a0.fileName), a0b)),
        msg("a", 1, "f4", HashIndexChange(Set(a0.fileName), Set.empty, a1))))
    assert(hashIndexes(t) === Seq(("a", 0, Seq(1, 2, 3)), ("a", 1, Seq(4)), ("b", 0, Seq(7))))
    // an append without new keys carries the index over
    new FileStoreCommit(t, "w").append(Seq(CommitMessage(stringPartition("a"), 0, -1, Seq(file("f5")))))
    assert(hashIndexes(t).size === 3)
  }

  test("two writes that gave new keys to one partition from the same index: the second conflicts") {
    val t = newTable()
    new FileStoreCommit(t, "w").append(Seq(msg("a", 0, "f1", HashIndexChange(Set.empty, Set.empty, index(t, 1)))))
    val read = hashIndexes(t)
    val before = t.snapshotManager.latest().flatMap(_.indexManifest).map(t.manifestStore.readIndexManifest).get
      .map(_.indexFile.fileName).toSet
    // each write put key 9 in a bucket of its own: committing both would leave it in two
    new FileStoreCommit(t, "x").append(Seq(msg("a", 1, "f2", HashIndexChange(before, Set.empty, index(t, 9)))))
    val e = intercept[CommitConflictException](
      new FileStoreCommit(t, "y").append(Seq(msg("a", 2, "f3", HashIndexChange(before, Set.empty, index(t, 9))))))
    assert(e.getMessage.contains("dynamic-bucket index") && e.getMessage.contains(t.name))
    assert(hashIndexes(t) === read :+ (("a", 1, Seq(9))))
    // a write into another partition is not affected
    new FileStoreCommit(t, "y").append(Seq(msg("b", 0, "f4", HashIndexChange(Set.empty, Set.empty, index(t, 9)))))
    assert(hashIndexes(t).map(e => (e._1, e._2)) === Seq(("a", 0), ("a", 1), ("b", 0)))
  }

  test("two tasks giving new keys to one bucket fail the commit, which commits nothing") {
    val t = newTable()
    val c = HashIndexChange(Set.empty, Set.empty, index(t, 1))
    intercept[IllegalStateException](new FileStoreCommit(t, "w").append(Seq(msg("a", 0, "f1", c), msg("a", 0, "f2", c))))
    assert(t.snapshotManager.latest().isEmpty)
  }

  test("an overwrite drops the index of the partitions it replaces and writes; others stay") {
    val t = newTable()
    new FileStoreCommit(t, "w").append(Seq(msg("a", 0, "f1", HashIndexChange(Set.empty, Set.empty, index(t, 1))),
        msg("b", 0, "f2", HashIndexChange(Set.empty, Set.empty, index(t, 2))),
        msg("c", 0, "f3", HashIndexChange(Set.empty, Set.empty, index(t, 3)))))
    val p = (v: String) => java.nio.ByteBuffer.wrap(stringPartition(v))
    new FileStoreCommit(t, "w").overwritePartitions(
      Seq(msg("a", 3, "f4", HashIndexChange(Set.empty, Set.empty, index(t, 5)))), Set(p("a"), p("b")))
    assert(hashIndexes(t) === Seq(("a", 3, Seq(5)), ("c", 0, Seq(3))))
    new FileStoreCommit(t, "w").overwrite(Seq.empty, None)
    assert(hashIndexes(t) === Seq.empty)
  }
}
