package lamina.table.scan

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.SnapshotExpiredException
import lamina.table.{FileStoreTable, TempTables, TestTables}
import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit

class StreamScanTest extends AnyFunSuite with TempTables {

  /** An append table: snapshot 1 adds f1 and f2, 2 compacts them into c1, 3 adds f3, 4 adds f4 and f5. */
  private def history(): FileStoreTable = {
    val t = newTable(TestTables.eventsSchema())
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(message("a", file("f1", rows = 10), file("f2", rows = 20))))
    c.append(Seq(message("a").copy(compactBefore = Seq(file("f1", rows = 10), file("f2", rows = 20)),
          compactAfter = Seq(file("c1", rows = 30)))))
    c.append(Seq(message("a", file("f3", rows = 5))))
    c.append(Seq(message("a", file("f4", rows = 5)), message("b", file("f5", rows = 50))))
    t
  }

  private def names(units: Seq[(DataSplit, Boolean)]) = units.map { case (s, full) => (s.files.map(_.fileName), full) }

  test("start positions follow scan.mode") {
    val t = history()
    val scan = new StreamScan(t, ChangeSource.Delta)
    def start(o: (String, String)*) = scan.start(o.toMap)
    assert(start() === StreamPosition(4, 0, full = true))
    assert(start("scan.mode" -> "latest") === StreamPosition(5, 0, full = false))
    assert(start("scan.mode" -> "from-snapshot", "scan.snapshot-id" -> "2") === StreamPosition(2, 0, full = false))
    assert(start("scan.snapshot-id" -> "3") === StreamPosition(3, 0, full = false))
    assert(start("scan.mode" -> "from-snapshot-full", "scan.snapshot-id" -> "2") === StreamPosition(2, 0, full = true))
    val t3 = t.snapshotManager.snapshot(3).timeMillis
    assert(start("scan.mode" -> "from-timestamp", "scan.timestamp-millis" -> t3.toString) === StreamPosition(4, 0, full = false))
    val e = intercept[lamina.errors.BadInputException](start("scan.mode" -> "from-snapshot"))
    assert(e.getMessage === s"Streaming read of table ${t.name}: scan.mode 'from-snapshot' needs 'scan.snapshot-id'")
  }

  test("a snapshot read whole, then each APPEND snapshot's new files, one unit per file of an append table") {
    val t = history()
    val scan = new StreamScan(t, ChangeSource.Delta)
    val all = scan.advance(StreamPosition(2, 0, full = true), StreamLimit.None, last = 4)
    assert(all === StreamPosition(5, 0, full = false))
    assert(names(scan.between(StreamPosition(2, 0, full = true), all)) ===
      Seq((Seq("c1"), true), (Seq("f3"), false), (Seq("f4"), false), (Seq("f5"), false)))
    // the compaction's snapshot adds no changes
    assert(names(scan.between(StreamPosition(1, 0, full = false), StreamPosition(3, 0, full = false))) ===
      Seq((Seq("f1"), false), (Seq("f2"), false)))
  }

  test("limits take whole units, at least one") {
    val t = history()
    val scan = new StreamScan(t, ChangeSource.Delta)
    val from = StreamPosition(1, 0, full = false)
    assert(scan.advance(from, StreamLimit(Some(1), None), 4) === StreamPosition(1, 1, full = false))
    // past the compaction's snapshot, which holds no units, to the next unit
    assert(scan.advance(StreamPosition(1, 1, full = false), StreamLimit(Some(1), None), 4) ===
      StreamPosition(3, 0, full = false))
    assert(scan.advance(from, StreamLimit(None, Some(29)), 4) === StreamPosition(1, 1, full = false))
    assert(scan.advance(from, StreamLimit(None, Some(35)), 4) === StreamPosition(4, 0, full = false))
    assert(scan.advance(StreamPosition(4, 1, full = false), StreamLimit(None, Some(1)), 4) ===
      StreamPosition(5, 0, full = false)) // one unit even above the limit
    assert(scan.advance(StreamPosition(5, 0, full = false), StreamLimit.None, 4) === StreamPosition(5, 0, full = false))
  }

  test("a stream whose next snapshot expired fails naming it and how to restart") {
    val t = history()
    t.snapshotManager.delete(1)
    t.snapshotManager.delete(2)
    t.snapshotManager.commitEarliestHint(3)
    val e = intercept[SnapshotExpiredException](
      new StreamScan(t, ChangeSource.Delta).advance(StreamPosition(2, 0, full = false), StreamLimit.None, 4))
    assert(e.snapshotId === 2L)
    assert(e.getMessage.startsWith(s"Streaming read of table ${t.name} needs snapshot 2, which has expired (the " +
        "earliest kept snapshot is 3) and whose changelog was not kept: the changes in between are lost to this stream. Restart the query with a new " +
        "checkpoint location"))
  }

  test("positions order by snapshot, then unit") {
    assert(StreamPosition(2, 5, full = true) < StreamPosition(3, 0, full = false))
    assert(StreamPosition(3, 0, full = false) < StreamPosition(3, 1, full = false))
    assert(StreamPosition(3, 7, full = false).nextSnapshot === StreamPosition(4, 0, full = false))
  }
}
