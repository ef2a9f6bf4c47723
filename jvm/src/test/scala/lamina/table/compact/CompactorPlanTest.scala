package lamina.table.compact

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

import lamina.format.BinaryRowCodec
import lamina.mergetree.FileKeyOrder
import lamina.table.TestTables
import lamina.table.manifest.DataFileMeta
import lamina.table.scan.DataSplit
import lamina.types.IntType

/** [[Compactor.plan]] on synthetic file metadata: no file is read or written. */
class CompactorPlanTest extends AnyFunSuite {
  private val keyTypes = Seq(IntType(nullable = false))
  private val keys = new FileKeyOrder(keyTypes)
  private def key(k: Int) = BinaryRowCodec.serialize(InternalRow(k), keyTypes)

  private def file(name: String, level: Int, lo: Int, hi: Int, size: Long, seq: Long = 0L): DataFileMeta =
    TestTables.file(name, level = level).copy(minKey = key(lo), maxKey = key(hi), fileSize = size,
      minSequenceNumber = seq, maxSequenceNumber = seq)

  private def split(files: DataFileMeta*) = DataSplit(1L, Array.emptyByteArray, 0, 1, "/nowhere/bucket-0", files)
  // 3 levels (0, 1, 2), compaction from 3 sorted runs
  private val options = Map("num-sorted-run.compaction-trigger" -> "3", "num-levels" -> "3")

  test("fewer runs than the trigger: nothing to compact") {
    assert(Compactor.plan(split(file("a", 0, 0, 9, 10, seq = 1), file("b", 2, 0, 9, 1000)), keys, options, full = false).isEmpty)
  }

  test("full compaction takes every file to the top level and drops deletes") {
    val files = Seq(file("a", 0, 0, 9, 10, seq = 2), file("b", 0, 5, 15, 10, seq = 1), file("c", 2, 0, 99, 1000))
    val plan = Compactor.plan(split(files: _*), keys, options, full = true).get
    assert(plan.inputs.map(_.fileName).toSet == Set("a", "b", "c"))
    assert(plan.outputLevel == 2 && plan.dropDeletes)
  }

  test("a full compaction of one run already on top has nothing to do") {
    assert(Compactor.plan(split(file("c", 2, 0, 99, 1000)), keys, options, full = true).isEmpty)
  }

  test("with record-level expiration, a full compaction of one top run rewrites its files holding expired records") {
    val top = Seq(file("c", 2, 0, 49, 1000), file("d", 2, 50, 99, 1000), file("e", 2, 100, 149, 1000))
    val plan = Compactor.plan(split(top: _*), keys, options, full = true, expired = f => f.fileName != "d").get
    assert(plan.inputs.map(_.fileName) === Seq("c", "e") && plan.outputLevel === 2 && plan.dropDeletes)
    assert(Compactor.plan(split(top: _*), keys, options, full = true, expired = _ => false).isEmpty)
    // not a full compaction: the universal pick alone
    assert(Compactor.plan(split(top: _*), keys, options, full = false, expired = _ => true).isEmpty)
  }

  test("universal compaction merges small level-0 runs below an untouched top level, keeping deletes") {
    val files = Seq(file("a", 0, 0, 9, 10, seq = 3), file("b", 0, 0, 9, 10, seq = 2), file("c", 0, 0, 9, 10, seq = 1),
      file("top", 2, 0, 99, 100000))
    val plan = Compactor.plan(split(files: _*), keys, options, full = false).get
    assert(plan.inputs.map(_.fileName).toSet == Set("a", "b", "c"))
    assert(plan.outputLevel == 1)
    assert(!plan.dropDeletes)
  }

  test("files of one level whose key ranges touch count as separate runs") {
    // one run at level 2 would be below the trigger; two touching files make two runs there
    val touching = Seq(file("l0", 0, 0, 9, 10, seq = 5), file("x", 2, 0, 10, 10), file("y", 2, 10, 20, 10))
    val plan = Compactor.plan(split(touching: _*), keys, options, full = false)
    assert(plan.isDefined)
    assert(plan.get.outputLevel == 2)
    val disjoint = Seq(file("l0", 0, 0, 9, 10, seq = 5), file("x", 2, 0, 10, 10), file("y", 2, 11, 20, 10))
    assert(Compactor.plan(split(disjoint: _*), keys, options, full = false).isEmpty)
  }

  test("a run left at the output level keeps the deletes of the output") {
    // level 1 holds two runs (x and y touch at key 10); the level-0 prefix grows to the first run above
    // level 0 (y, the run of the higher keys) and writes level 1, where x stays: a delete may shadow x
    val files = Seq(file("a", 0, 0, 9, 1, seq = 9), file("b", 0, 0, 9, 1, seq = 8), file("x", 1, 0, 10, 1000000),
      file("y", 1, 10, 20, 1000))
    val plan = Compactor.plan(split(files: _*), keys, options, full = false).get
    assert(plan.inputs.map(_.fileName).toSet == Set("a", "b", "y"))
    assert(plan.outputLevel == 1)
    assert(!plan.dropDeletes)
  }
}
