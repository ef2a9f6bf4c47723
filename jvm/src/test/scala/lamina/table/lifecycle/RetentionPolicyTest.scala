package lamina.table.lifecycle

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException

class RetentionPolicyTest extends AnyFunSuite {
  private val Hour = 3600000L
  private val now = 100 * Hour

  /** Snapshot i committed at hour i (snapshot 100 now). */
  private def hourly(id: Long): Option[Long] = Some(id * Hour)

  private def policy(min: Int = 1, max: Int = Int.MaxValue, time: Long = 0L, limit: Int = 1000) =
    RetentionPolicy(min, max, time, limit)

  test("time-retained: a snapshot expires once its successor is older than the retention") {
    // 93's successor was committed 6 h ago: 93 expires; 94's 5 h ago: 94 stays
    assert(policy(time = 5 * Hour).firstRetained(1, 100, now, hourly) === 94)
    // 100 was committed at `now`: 99 stays readable until a moment later
    assert(policy(time = 0).firstRetained(1, 100, now, hourly) === 99)
    assert(policy(time = 0).firstRetained(1, 100, now + 1, hourly) === 100)
  }

  test("num-retained.min keeps the newest snapshots however old") {
    assert(policy(min = 10).firstRetained(1, 100, now, hourly) === 91)
    assert(policy(min = 10).firstRetained(1, 5, now, hourly) === 1)
  }

  test("num-retained.max expires the oldest however young") {
    val young: Long => Option[Long] = _ => Some(now)
    assert(policy(max = 20, time = 7 * 24 * Hour).firstRetained(1, 100, now, young) === 81)
    assert(policy(time = 7 * 24 * Hour).firstRetained(1, 100, now, young) === 1)
  }

  test("expire.limit caps one run; the earliest id moves the window") {
    assert(policy(limit = 50).firstRetained(1, 100, now, hourly) === 51)
    assert(policy(limit = 50).firstRetained(51, 100, now, hourly) === 99)
    assert(policy(max = 10, limit = 5).firstRetained(1, 100, now, hourly) === 6)
  }

  test("a snapshot whose successor is gone does not stop the scan") {
    val gaps: Long => Option[Long] = id => if (id == 3) None else Some(id * Hour)
    assert(policy(time = 50 * Hour).firstRetained(1, 100, now, gaps) === 49)
  }

  test("nothing below the earliest snapshot, and none when it is the latest") {
    assert(policy().firstRetained(7, 7, now, hourly) === 7)
    assert(policy(min = 3).firstRetained(99, 100, now, hourly) === 99)
  }

  test("bad policies name the argument") {
    assert(intercept[BadInputException](policy(min = 0)).getMessage === "retain_min must be at least 1, got 0")
    assert(intercept[BadInputException](policy(min = 5, max = 4)).getMessage ===
      "retain_max (4) must not be less than retain_min (5)")
    assert(intercept[BadInputException](policy(limit = 0)).getMessage === "max_deletes must be at least 1, got 0")
  }

  test("the table's options, with arguments on top; defaults keep 7 days") {
    val p = RetentionPolicy.of(Map("snapshot.num-retained.min" -> "3", "snapshot.time-retained" -> "2 h"), retainMax = Some(8))
    assert(p === RetentionPolicy(3, 8, 2 * Hour, 50))
    assert(RetentionPolicy.of(Map.empty) === RetentionPolicy(10, Int.MaxValue, 7 * 24 * Hour, 50))
  }

  test("the tags to keep files for: those in the range and the last one before it") {
    assert(RetentionPolicy.tagsToKeep(Seq(9L, 2L, 5L, 12L), 4, 10) === Seq(2L, 5L, 9L))
    assert(RetentionPolicy.tagsToKeep(Seq(4L, 2L), 4, 10) === Seq(4L))
    assert(RetentionPolicy.tagsToKeep(Seq(10L, 11L), 4, 10) === Nil)
    assert(RetentionPolicy.tagsToKeep(Nil, 4, 10) === Nil)
  }
}
