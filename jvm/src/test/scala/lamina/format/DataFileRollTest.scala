package lamina.format

import java.nio.file.Files

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.types.{DataField, IntType}

/** One writer's run of data files, with a data-file writer that writes one byte per row. */
class DataFileRollTest extends AnyFunSuite {
  private val counting = ByteCountingWriters.writers

  private def roll(dir: Path, target: Long): DataFileRoll = roll(DataFileDir.local(dir), target)

  private def roll(dir: DataFileDir, target: Long) =
    new DataFileRoll(TestTables.fileIO, dir, counting, 0, "changelog",
      new ValueStats(StatsMode.NoStats, Seq(DataField(0, "a", IntType())), counting), target, 1)

  test("files are named by prefix, one uuid and a counter, and close into their size; abort removes them all") {
    val local = Files.createTempDirectory("roll")
    val dir = TestTables.hadoopPath(local)
    // the writer is asked once the rows' in-memory size reaches the target: at every row here
    val r = roll(dir, target = 1L)
    assert(!r.isOpen)
    val done = (1 to 2).map { i =>
      r.open()
      assert(r.write(InternalRow(i), InternalRow(i)), "one byte reaches the target")
      r.close()
    }
    assert(done.map(_.fileSize) == Seq(1L, 1L))
    r.open()
    assert(r.isOpen)
    val names = done.map(_.fileName)
    val uuid = names.head.stripPrefix("changelog-").stripSuffix("-0.orc")
    assert(names == Seq(s"changelog-$uuid-0.orc", s"changelog-$uuid-1.orc"))
    assert(done.forall(_.valueStatsCols.contains(Nil)), "no statistics: no column's")
    assert(local.toFile.list().count(_.endsWith(".orc")) == 3, "two closed, one open")
    r.abort()
    assert(!r.isOpen)
    assert(local.toFile.list().count(_.endsWith(".orc")) == 0, "the open file and the closed ones are removed")
    TestTables.deleteRecursively(local)
  }

  test("under external roots, files go to each root in turn and record their full path; abort removes them") {
    val local = Files.createTempDirectory("roll")
    val roots = Seq("a", "b").map(n => TestTables.hadoopPath(local.resolve(n)))
    val r = roll(new DataFileDir(TestTables.hadoopPath(local.resolve("table")), roots), target = 1L)
    val done = (1 to 4).map { i =>
      r.open()
      r.write(InternalRow(i), InternalRow(i))
      r.close()
    }
    val dirs = done.map(_.externalPath.get).map(p => new Path(p).getParent.getName)
    assert(dirs.toSet == Set("a", "b") && dirs.sliding(2).forall(p => p.head != p.last), "the roots alternate")
    assert(done.forall(f => new Path(f.externalPath.get).getName == f.fileName))
    assert(!Files.exists(local.resolve("table")), "nothing in the table's directory")
    r.abort()
    assert(Seq("a", "b").forall(n => local.resolve(n).toFile.list().isEmpty))
    TestTables.deleteRecursively(local)
  }
}
