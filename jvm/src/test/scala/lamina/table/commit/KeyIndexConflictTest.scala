package lamina.table.commit

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CommitConflictException
import lamina.table.{FileStoreTable, TestTables}
import lamina.table.TestTables.{file, stringPartition}

/** A cross-partition upsert commits only when no snapshot after the one its key index was built from
 *  wrote rows: a compaction moves no key, any other commit might have put one of its keys elsewhere. */
class KeyIndexConflictTest extends AnyFunSuite {
  private val root = TestTables.tempDir("key-index-conflict")

  private def newTable(name: String): FileStoreTable = {
    val schema = TestTables.eventsSchema(Map("bucket" -> "-1")).copy(primaryKeys = Seq("id"))
    TestTables.createTable(root.resolve(name), schema)
  }

  private def msg(p: String, name: String) = CommitMessage(stringPartition(p), 0, -1, Seq(file(name)))

  test("a write landing after the index's snapshot is a conflict; a compaction is not") {
    val t = newTable("t")
    assert(t.hasCrossPartitionUpsert)
    val c = new FileStoreCommit(t, "w")
    assert(c.append(Seq(msg("a", "f1")), keyIndexBase = Some(None)) === Some(1L))
    // built on snapshot 1, and nothing else landed
    assert(c.append(Seq(msg("b", "f2")), keyIndexBase = Some(Some(1L))) === Some(2L))
    // built on snapshot 1, but snapshot 2 wrote rows
    val e = intercept[CommitConflictException](c.append(Seq(msg("a", "f3")), keyIndexBase = Some(Some(1L))))
    assert(e.getMessage.contains("snapshot 2 wrote rows after snapshot 1") && e.getMessage.contains(t.name))
    // an empty table's index: any earlier write conflicts
    assert(intercept[CommitConflictException](c.append(Seq(msg("a", "f4")), keyIndexBase = Some(None)))
        .getMessage.contains("after snapshot (none)"))
    val compacted = CommitMessage(stringPartition("a"), 0, -1, Seq.empty, compactBefore = Seq(file("f1")),
      compactAfter = Seq(file("f5")))
    assert(c.append(Seq(compacted)) === Some(3L))
    assert(c.append(Seq(msg("a", "f6")), keyIndexBase = Some(Some(2L))) === Some(4L))
    assert(t.snapshotManager.latestId() === Some(4L))
  }
}
