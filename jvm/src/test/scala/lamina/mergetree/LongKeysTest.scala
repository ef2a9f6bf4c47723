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
}
