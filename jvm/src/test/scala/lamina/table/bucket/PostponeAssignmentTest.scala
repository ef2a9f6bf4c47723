package lamina.table.bucket

import org.scalatest.funsuite.AnyFunSuite

class PostponeAssignmentTest extends AnyFunSuite {
  import PostponeAssignment.newCount

  test("a new partition's count: postpone.default-bucket-num, else the engine's parallelism") {
    assert(newCount(Map.empty, 1000, 8) === 8)
    assert(newCount(Map.empty, 1000, 0) === 1)
    assert(newCount(Map("postpone.default-bucket-num" -> "3"), 1000, 8) === 3)
  }

  test("postpone.target-bucket-rows: one bucket per that many waiting records, rounded up, capped") {
    val target = Map("postpone.target-bucket-rows" -> "100", "postpone.default-bucket-num" -> "3")
    assert(newCount(target, 0, 8) === 1)
    assert(newCount(target, 1, 8) === 1)
    assert(newCount(target, 100, 8) === 1)
    assert(newCount(target, 101, 8) === 2)
    assert(newCount(target, 1000, 8) === 10)
    assert(newCount(target + ("postpone.batch-write-fixed-bucket.max-parallelism" -> "4"), 1000, 8) === 4)
    assert(newCount(target, Long.MaxValue, 8) === 2048)
  }
}
