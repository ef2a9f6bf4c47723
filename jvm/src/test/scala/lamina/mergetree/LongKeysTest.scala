package lamina.mergetree

import org.scalatest.funsuite.AnyFunSuite

class LongKeysTest extends AnyFunSuite {

  test("select finds exactly the positions of chosen keys, sparse or dense on either side") {
    val random = new scala.util.Random(5)
    for (round <- 1 to 2000) {
      val spread = if (round % 2 == 0) 50 else 5000
      val batch = Array.fill(random.nextInt(200))(random.nextInt(spread).toLong).distinct.sorted
      val chosen = LongKeys.of(Array.fill(random.nextInt(if (round % 3 == 0) 500 else 8))(random.nextInt(spread).toLong))
      val (from, to) = {
        val a = random.nextInt(batch.length + 1); val b = random.nextInt(batch.length + 1)
        (math.min(a, b), math.max(a, b))
      }
      val out = new Array[Int](batch.length)
      val n = chosen.select(batch(_), from, to, out)
      val want = (from until to).filter(i => chosen.sorted.contains(batch(i)))
      assert(out.take(n).toSeq == want, s"round $round")
    }
  }

  test("keys are distinct and ascending; contains, range and within agree with them") {
    val k = LongKeys.of(Array(9L, -3, 9, 4, Long.MaxValue))
    assert(k.sorted.toSeq == Seq(-3L, 4, 9, Long.MaxValue) && k.size == 4)
    assert(k.range == KeyRange(-3, Long.MaxValue))
    assert(k.contains(4) && !k.contains(5))
    assert(LongKeys.of(Array.emptyLongArray).range.isEmpty)
    var read = 0
    val records = (-5L to 20L).iterator.map { i => read += 1; new KeyValue(null, i, RowKind.Insert, null) }
    val small = LongKeys.of(Array(-3L, 4, 9))
    assert(small.within(records, _.sequenceNumber).map(_.sequenceNumber).toList == List(-3L, 4, 9))
    assert(read == 16) // it stopped at the first record above 9
    assert(LongKeys.of(Array.emptyLongArray).within(Iterator(new KeyValue(null, 1, RowKind.Insert, null)), _.sequenceNumber).isEmpty)
  }

  test("a cover holds every key in at most the ranges asked, cut at the widest gaps") {
    val random = new scala.util.Random(11)
    for (round <- 1 to 1000) {
      val spread = if (round % 2 == 0) 60 else 100000
      val keys = LongKeys.of(Array.fill(random.nextInt(120))(random.nextInt(spread).toLong))
      val max = 1 + random.nextInt(12)
      val cover = keys.cover(max)
      val clue = s"round $round: ${keys.sorted.toSeq} in $max: $cover"
      assert(cover.size <= max && cover.isEmpty == (keys.size == 0), clue)
      assert(cover.indices.drop(1).forall(i => cover(i - 1).upper + 1 < cover(i).lower) && cover.forall(r => !r.isEmpty), clue)
      assert(keys.sorted.forall(k => cover.exists(r => r.lower <= k && k <= r.upper)), clue)
      // each range starts and ends at a key
      assert(cover.forall(r => keys.contains(r.lower) && keys.contains(r.upper)), clue)
      // no gap left inside a range is wider than a gap cut between two ranges
      val inside = keys.sorted.sliding(2).collect { case Array(a, b) if cover.exists(r => r.lower <= a && b <= r.upper) => b - a }
      val cut = cover.indices.drop(1).map(i => cover(i).lower - cover(i - 1).upper)
      if (cut.nonEmpty) assert(inside.forall(_ <= cut.min), clue)
      // fewer ranges than asked only when no gap is left to cut
      val gaps = keys.sorted.sliding(2).count { case Array(a, b) => b - a > 1; case _ => false }
      assert(cover.size == math.min(max, gaps + 1) || keys.size == 0, clue)
    }
  }

  test("a cover's gaps are unsigned: keys at both ends of the long range") {
    // the gap above -5 is 2^63 + 4 wide, the one below it 2^63 - 6: signed, both would be negative
    val k = LongKeys.of(Array(Long.MinValue, Long.MinValue + 1, -5L, Long.MaxValue))
    assert(k.cover(2) == IndexedSeq(KeyRange(Long.MinValue, -5L), KeyRange(Long.MaxValue, Long.MaxValue)))
    assert(k.cover(3) == IndexedSeq(KeyRange(Long.MinValue, Long.MinValue + 1), KeyRange(-5L, -5L),
      KeyRange(Long.MaxValue, Long.MaxValue)))
    assert(k.cover(1) == IndexedSeq(KeyRange(Long.MinValue, Long.MaxValue)))
  }
}
