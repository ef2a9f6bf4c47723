package lamina.table.compact

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{CommitConflictException, PostCommitFailureException}
import lamina.table.options.TableCapabilities

/** The compaction a committed write asks for, and how its attempts run, without a table. */
class CompactAfterWriteTest extends AnyFunSuite {
  import CompactAfterWrite.{plan, Plan}
  private def attempts(p: Plan, table: String, snapshot: Long)(compact: => Unit): Unit =
    CompactAfterWrite.run(p, table, snapshot)(compact)

  private def planOf(options: Map[String, String], primaryKey: Boolean = true, buckets: Int = 2,
      batchId: Option[Long] = None) =
    plan(TableCapabilities.of(options, primaryKey, "db.t"), buckets, options, batchId)

  private val dv = Map("deletion-vectors.enabled" -> "true")
  private val firstRow = Map("merge-engine" -> "first-row")
  private val writeOnly = Map("write-only" -> "true")

  test("tables whose readers skip level 0 compact the write's buckets, and the compaction must land") {
    assert(planOf(dv).contains(Plan(full = false, lookup = true, mustLand = true, CompactAfterWrite.FullCompactionAttempts)))
    assert(planOf(firstRow).contains(Plan(full = true, lookup = false, mustLand = true,
          CompactAfterWrite.FullCompactionAttempts)))
    // write-only leaves a deletion-vector table's lookup compaction to CALL sys.compact; first-row must still land
    assert(planOf(dv ++ writeOnly).isEmpty)
    assert(planOf(firstRow ++ writeOnly).exists(p => p.full && p.mustLand))
    // merge-on-read: readers merge level 0, so nothing must land
    assert(planOf(dv + ("deletion-vectors.merge-on-read" -> "true")).exists(p => p.lookup && !p.mustLand && p.attempts == 3))
  }

  test("other tables compact as best effort, unless write-only; append tables without buckets never") {
    assert(planOf(Map.empty).contains(Plan(full = false, lookup = false, mustLand = false, 3)))
    assert(planOf(writeOnly).isEmpty)
    assert(planOf(Map.empty, primaryKey = false, buckets = 4).contains(Plan(false, false, false, 3)))
    assert(planOf(Map.empty, primaryKey = false, buckets = -1).isEmpty)
    assert(planOf(writeOnly, primaryKey = false, buckets = 4).isEmpty)
  }

  test("the full-compaction changelog producer asks for a full compaction every delta-commits micro-batch") {
    val full = Map("changelog-producer" -> "full-compaction", "full-compaction.delta-commits" -> "3")
    assert(planOf(full).exists(_.full), "a batch write")
    assert(planOf(full, batchId = Some(2L)).exists(_.full))
    assert(planOf(full, batchId = Some(3L)).exists(p => !p.full))
    assert(planOf(Map("changelog-producer" -> "full-compaction")).exists(p => !p.full), "no delta-commits: never")
  }

  private def conflict = new CommitConflictException("lost")

  test("a lost race is tried again while attempts remain") {
    var calls = 0
    attempts(Plan(false, true, true, 5), "db.t", 7L) { calls += 1; if (calls < 3) throw conflict }
    assert(calls == 3)
  }

  test("a compaction that must land fails the write naming its committed snapshot; any other only warns") {
    var calls = 0
    val e = intercept[PostCommitFailureException](attempts(Plan(false, true, true, 4), "db.t", 7L) { calls += 1; throw conflict })
    assert(calls == 4)
    assert(e.getMessage.startsWith("The write to table db.t is committed (snapshot 7): do not run it again."))
    assert(e.getMessage.contains("failed after 4 attempt(s); readers of a deletion-vector table see its rows once " +
        "CALL <catalog>.sys.compact(table => 'db.t') succeeds"))
    assert(e.getCause.isInstanceOf[CommitConflictException])
    val other = intercept[PostCommitFailureException](
      attempts(Plan(true, false, true, 2), "db.t", 9L)(throw new IllegalStateException("disk")))
    assert(other.getMessage.contains("after 1 attempt(s); readers of a first-row table"))

    calls = 0
    attempts(Plan(false, false, false, 3), "db.t", 7L) { calls += 1; throw conflict }
    assert(calls == 3, "best effort: three attempts, then the write stands")
    attempts(Plan(false, false, false, 3), "db.t", 7L)(throw new IllegalStateException("disk"))
  }
}
