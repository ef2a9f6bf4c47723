package lamina.table.scan

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.TestTables.{file, message}
import lamina.table.commit.FileStoreCommit

class DiffScanTest extends AnyFunSuite with BeforeAndAfterAll {
  private val root = TestTables.tempDir("diff-scan")
  override def afterAll(): Unit = TestTables.deleteRecursively(root)

  test("an append table's diff holds, per bucket that changed, the files only one side holds") {
    val t = TestTables.createTable(root.resolve("t"), TestTables.eventsSchema())
    val c = new FileStoreCommit(t, "w")
    c.append(Seq(message("a", file("a1")), message("b", file("b1"))))
    c.append(Seq(message("a").copy(compactBefore = Seq(file("a1")), compactAfter = Seq(file("a2")))))
    c.append(Seq(message("c", file("c1"))))
    def names(ds: Seq[DiffSplit]) = ds.map(d => (d.before.files.map(_.fileName), d.after.files.map(_.fileName)))
    val scan = new DiffScan(t)
    assert(names(scan.between(1, 3)) === Seq((Seq("a1"), Seq("a2")), (Seq.empty, Seq("c1"))))
    assert(names(scan.between(0, 1)) === Seq((Seq.empty, Seq("a1")), (Seq.empty, Seq("b1"))))
    assert(scan.between(3, 3).isEmpty)
  }
}
