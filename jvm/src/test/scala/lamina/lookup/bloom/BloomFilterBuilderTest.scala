package lamina.lookup.bloom

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class BloomFilterBuilderTest extends AnyFunSuite {

  /** The bytes of a filter for `entries` hashes added one by one, and through a builder. */
  private def bothWays(entries: Int, seed: Long): (Array[Byte], Array[Byte]) = {
    val rnd = new Random(seed)
    val hashes = Array.fill(entries)(rnd.nextLong())
    val direct = BloomFilter.create(entries, 0.05)
    hashes.foreach(direct.addHash)
    val builder = new BloomFilterBuilder(BloomFilter.create(entries, 0.05))
    hashes.foreach(builder.add)
    val built = builder.finish()
    assert(hashes.forall(built.testHash))
    (direct.bits, built.bits)
  }

  test("a small filter takes hashes as they come") {
    val (direct, built) = bothWays(10000, 1)
    assert(direct.length <= BloomFilterBuilder.DirectMaxBytes)
    assert(java.util.Arrays.equals(direct, built))
  }

  test("a large filter, filled in sorted batches (several, the last one partial), has the same bytes") {
    // 3M entries: a 2.3 MB filter, batches of twice its 36K blocks, so 41 full batches and a partial one
    val (direct, built) = bothWays(3000000, 2)
    assert(direct.length > BloomFilterBuilder.DirectMaxBytes)
    assert(java.util.Arrays.equals(direct, built))
  }
}
