package lamina.mergetree

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/** A k-way merge driven by [[LoserTree]] alone, over random runs of (key, sequence number), compared
 *  with all records sorted by (key, sequence number, run). Seeds are fixed. */
class LoserTreeTest extends AnyFunSuite {

  /** Runs of records ascending by (key, seq), and a tree over their heads, which tie on equal keys. */
  private final class Merge(val runs: IndexedSeq[IndexedSeq[(Long, Long)]]) extends LoserTree(runs.size) {
    val pos = new Array[Int](runs.size)
    var comparisons = 0L
    def head(r: Int): (Long, Long) = runs(r)(pos(r))
    def live(r: Int): Boolean = pos(r) < runs(r).size

    /** By (key, seq, run), a run out after every other. */
    def precedes(a: Int, b: Int): Boolean =
      if (!live(a) || !live(b)) live(a) && !live(b)
      else {
        val (ka, sa) = head(a)
        val (kb, sb) = head(b)
        if (ka != kb) ka < kb else if (sa != sb) sa < sb else a < b
      }
    override protected def before(a: Int, b: Int): Boolean = { comparisons += 1; precedes(a, b) }
    override protected def tie(a: Int, b: Int): Boolean = live(a) && live(b) && head(a)._1 == head(b)._1
    override protected def out(r: Int): Boolean = !live(r)
    start()

    def first: Int = winner
    def second: Int = runnerUp
    def tied: Boolean = winnerTies
    def ties(into: Array[Int]): Int = winnerAndTies(into)

    /** The best live run other than the winner, by brute force. */
    def expectedRunnerUp: Int = {
      val others = runs.indices.filter(r => live(r) && r != winner)
      if (others.isEmpty) -1 else others.reduce((a, b) => if (precedes(a, b)) a else b)
    }

    /** Hands out the winner's head and advances its run. */
    def take(): (Long, Long, Int) = {
      val w = winner
      val (k, s) = head(w)
      pos(w) += 1
      if (live(w)) winnerMoved() else winnerOut()
      (k, s, w)
    }
  }

  private def reference(runs: IndexedSeq[IndexedSeq[(Long, Long)]]): Seq[(Long, Long, Int)] =
    runs.zipWithIndex.flatMap { case (r, i) => r.map { case (k, s) => (k, s, i) } }.sortBy(identity)

  /** `n` runs: records dealt at random (overlapping, keys repeated within and across runs), or
   *  contiguous key ranges in a random run order (disjoint); about one run in five is empty. */
  private def randomRuns(rnd: Random, n: Int, disjoint: Boolean): IndexedSeq[IndexedSeq[(Long, Long)]] = {
    val records = rnd.nextInt(40 * n + 1)
    val empty = (0 until n).map(_ => rnd.nextInt(5) == 0)
    val filled = (0 until n).filterNot(empty)
    if (filled.isEmpty) return IndexedSeq.fill(n)(IndexedSeq.empty)
    val seqs = rnd.shuffle((1L to records).toList)
    val recs = if (disjoint) {
      val order = rnd.shuffle(filled)
      (0 until records).map(i => (order(i * order.size / math.max(records, 1)), (i.toLong, seqs(i))))
    } else {
      val keyRange = 1 + rnd.nextInt(2 * records + 1)
      (0 until records).map(i => (filled(rnd.nextInt(filled.size)), (rnd.nextInt(keyRange).toLong, seqs(i))))
    }
    val byRun = recs.groupBy(_._1)
    (0 until n).map(r => byRun.getOrElse(r, IndexedSeq.empty).map(_._2).sorted)
  }

  private val cases = for (n <- Seq(1, 2, 3, 7, 64); disjoint <- Seq(false, true)) yield (n, disjoint)

  test("the winners come in the order of all records sorted by (key, sequence number, run)") {
    val rnd = new Random(42)
    for ((n, disjoint) <- cases; round <- 1 to 40) {
      val runs = randomRuns(rnd, n, disjoint)
      val m = new Merge(runs)
      val got = Iterator.continually(m.first).takeWhile(_ >= 0).map { _ =>
        // the runner-up is asked for now and then: known and unknown runner-ups both get exercised
        if (rnd.nextInt(3) == 0) assert(m.second == m.expectedRunnerUp, s"$n runs, round $round")
        m.take()
      }.toList
      assert(got == reference(runs), s"$n runs, disjoint $disjoint, round $round")
      assert(m.second == -1)
    }
  }

  test("the winner and the runs that tie with it (equal keys), in order") {
    val rnd = new Random(7)
    for ((n, disjoint) <- cases; round <- 1 to 40) {
      val runs = randomRuns(rnd, n, disjoint)
      val m = new Merge(runs)
      val ties = new Array[Int](n)
      val got = Iterator.continually(m.first).takeWhile(_ >= 0).map { w =>
        if (rnd.nextInt(2) == 0) {
          val expected = runs.indices.filter(r => m.live(r) && m.head(r)._1 == m.head(w)._1).sortWith(m.precedes)
          assert(m.tied == expected.size > 1, s"$n runs, round $round")
          assert(ties.take(m.ties(ties)).toSeq == expected, s"$n runs, round $round")
        }
        m.take()
      }.toList
      assert(got == reference(runs), s"$n runs, disjoint $disjoint, round $round")
    }
  }

  test("runs holding a key once: the runs of the winner's key taken together unadvanced, then each advanced as the winner") {
    val rnd = new Random(11)
    for ((n, disjoint) <- cases; round <- 1 to 40) {
      val runs = randomRuns(rnd, n, disjoint).map(_.distinctBy(_._1))
      val expected = reference(runs)
      val m = new Merge(runs)
      val group = new Array[Int](n)
      val got = scala.collection.mutable.ArrayBuffer.empty[(Long, Long, Int)]
      while (m.first >= 0) {
        val key = m.head(m.first)._1
        val count = if (m.tied) m.ties(group) else { group(0) = m.first; 1 }
        assert(count == runs.indices.count(r => m.live(r) && m.head(r)._1 == key), s"$n runs, round $round")
        group.take(count).foreach { r =>
          assert(m.first == r, s"$n runs, round $round")
          got += m.take()
        }
      }
      assert(got == expected, s"$n runs, disjoint $disjoint, round $round")
    }
  }

  test("a run that precedes every other head is streamed with one comparison per record") {
    val rnd = new Random(3)
    for (n <- Seq(2, 7, 64)) {
      val runs = randomRuns(rnd, n, disjoint = true).filter(_.nonEmpty)
      val m = new Merge(runs)
      val records = runs.map(_.size).sum
      m.comparisons = 0
      while (m.first >= 0) m.take()
      // per run: its replays where it starts and ends, and the runner-up found twice
      val depth = 32 - Integer.numberOfLeadingZeros(2 * runs.size)
      assert(m.comparisons <= records + 4 * runs.size * depth, s"$n runs, $records records")
    }
  }

  test("no players, and players that are all out") {
    Seq(0, 1, 5).foreach { n =>
      new LoserTree(n) {
        override protected def before(a: Int, b: Int): Boolean = a < b
        override protected def tie(a: Int, b: Int): Boolean = fail("no tie asked")
        override protected def out(p: Int): Boolean = true
        start()
        assert(winner == -1 && runnerUp == -1)
      }
    }
  }
}
