package lamina.table.append

import org.scalatest.funsuite.AnyFunSuite

import lamina.table.TestTables
import lamina.table.manifest.DataFileMeta

class AppendCompactionTest extends AnyFunSuite {
  private val mb = 1024L * 1024
  private def files(sizesMb: Double*): Seq[DataFileMeta] =
    sizesMb.zipWithIndex.map { case (s, i) => TestTables.file(s"data-$i.parquet").copy(fileSize = (s * mb).toLong) }
  private val options = Map("target-file-size" -> "10 mb")
  private def packs(fs: Seq[DataFileMeta], full: Boolean, o: Map[String, String] = options): Seq[Seq[String]] =
    AppendCompaction.packs(fs, o, full).map(_.map(_.fileName))

  test("files of at least target-file-size * compaction.small-file-ratio are left alone") {
    assert(packs(files(7, 8, 9, 10), full = true) === Seq.empty)
    assert(packs(files(6.9, 8, 6.9), full = true) === Seq(Seq("data-0.parquet", "data-2.parquet")))
    assert(packs(files(5, 5, 8), full = true, options + ("compaction.small-file-ratio" -> "0.9")) ===
      Seq(Seq("data-0.parquet", "data-1.parquet", "data-2.parquet")))
  }

  test("a full compaction packs any two small files; a minor one waits for compaction.min.file-num") {
    val fs = files(1, 2, 3)
    assert(packs(fs, full = true) === Seq(Seq("data-0.parquet", "data-1.parquet", "data-2.parquet")))
    assert(packs(fs, full = false) === Seq.empty)
    assert(packs(files(1, 2, 3, 1, 1), full = false).map(_.size) === Seq(5))
    assert(packs(fs, full = false, options + ("compaction.min.file-num" -> "3")).map(_.size) === Seq(3))
    assert(packs(files(1), full = true) === Seq.empty)
  }

  test("smallest first, a group is cut once it holds twice target-file-size") {
    val groups = AppendCompaction.packs(files(6, 6, 6, 6, 1, 1), options, full = true)
    assert(groups.map(_.map(_.fileSize / mb)) === Seq(Seq(1, 1, 6, 6, 6)))
  }
}
