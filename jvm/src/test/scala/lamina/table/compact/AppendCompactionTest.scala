package lamina.table.compact

import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.{DeletionFile, DeletionVectorRange}
import lamina.table.TestTables.file
import lamina.table.manifest.DataFileMeta
import lamina.table.scan.DataSplit

/** Which files of an append table's bucket a compaction rewrites ([[AppendCompaction.plan]]). */
class AppendCompactionTest extends AnyFunSuite {
  // TestTables.file sizes a file 1000 + rows bytes
  private val options = Map("target-file-size" -> "2000 b", "compaction.min.file-num" -> "3")

  private def split(files: Seq[DataFileMeta], deleted: Map[String, Option[Long]] = Map.empty): DataSplit =
    DataSplit(1L, Array.emptyByteArray, 0, -1, "", files,
      deleted.map { case (f, n) =>
        f -> DeletionFile("index-0", 10L, DeletionVectorRange(f, 1, 8, n))
      })

  private def inputs(s: DataSplit, full: Boolean, opts: Map[String, String] = options): Seq[String] =
    AppendCompaction.plan(s, opts, full).toSeq.flatMap(_.inputs.map(_.fileName))

  test("full: every file of a bucket with more than one file or a deletion vector; a lone clean file stays") {
    assert(inputs(split(Seq(file("a", rows = 5000))), full = true) === Nil)
    assert(inputs(split(Seq(file("a", rows = 5000), file("b", rows = 5000))), full = true) === Seq("a", "b"))
    assert(inputs(split(Seq(file("a", rows = 5000)), Map("a" -> Some(1L))), full = true) === Seq("a"))
    val c = AppendCompaction.plan(split(Seq(file("a"), file("b"))), options, full = true).get
    assert(c.outputLevel === 0 && c.dropDeletes)
  }

  test("minor: small files once there are compaction.min.file-num of them") {
    val files = Seq(file("big", rows = 5000), file("s1"), file("s2"))
    assert(inputs(split(files), full = false) === Nil)
    assert(inputs(split(files :+ file("s3")), full = false) === Seq("s1", "s2", "s3"))
  }

  test("minor: a file whose vector deletes more than compaction.delete-ratio-threshold of its rows, with the small ones") {
    val files = Seq(file("big", rows = 5000), file("other", rows = 5000), file("s1"))
    assert(inputs(split(files, Map("big" -> Some(1000L))), full = false) === Nil) // exactly 0.2
    assert(inputs(split(files, Map("big" -> Some(1001L))), full = false) === Seq("big", "s1"))
    // a vector of unknown cardinality (Paimon before 0.9) counts as deleting every row
    assert(inputs(split(files, Map("other" -> None)), full = false) === Seq("other", "s1"))
    assert(inputs(split(files, Map("big" -> Some(1L))), full = false,
      options + ("compaction.delete-ratio-threshold" -> "0")) === Seq("big", "s1"))
  }
}
