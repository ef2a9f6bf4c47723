package lamina.lookup.bloom

/** Bloom filter over 64-bit key hashes, its bits in a byte array (bit i = byte i/8, bit i%8).
 *
 * Probe j (0 <= j < numHashFunctions) of hash h sets bit ((h1 + j * h2) mod numBits), where h1 is
 * the low and h2 the high 32 bits of h, both as unsigned, and the sum is taken in 64 bits.
 * Invariant: numBits = 8 * bits.length > 0, and every hash added tests true.
 */
final class BloomFilter(val bits: Array[Byte], val numHashFunctions: Int) {
  private val numBits: Long = bits.length.toLong * 8

  def addHash(hash: Long): Unit = {
    val h1 = hash & 0xffffffffL
    val h2 = hash >>> 32
    var j = 0
    while (j < numHashFunctions) {
      val bit = (h1 + j * h2) % numBits
      bits((bit >>> 3).toInt) = (bits((bit >>> 3).toInt) | (1 << (bit & 7).toInt)).toByte
      j += 1
    }
  }

  def testHash(hash: Long): Boolean = {
    val h1 = hash & 0xffffffffL
    val h2 = hash >>> 32
    var j = 0
    while (j < numHashFunctions) {
      val bit = (h1 + j * h2) % numBits
      if ((bits((bit >>> 3).toInt) & (1 << (bit & 7).toInt)) == 0) return false
      j += 1
    }
    true
  }
}

object BloomFilter {

  /** Bytes of a filter for `expectedEntries` at false positive probability `fpp`:
   *  ceil(-n ln p / (ln 2)^2) bits, rounded up to whole bytes, at least one byte. */
  def optimalNumBytes(expectedEntries: Long, fpp: Double): Int = {
    val n = math.max(1L, expectedEntries).toDouble
    val bitCount = math.ceil(-n * math.log(fpp) / (math.log(2) * math.log(2)))
    math.max(1L, math.min(Int.MaxValue - 8L, math.ceil(bitCount / 8).toLong)).toInt
  }

  /** Hash functions for a filter of `numBytes` sized for `expectedEntries`: round(bits / n * ln 2),
   *  at least 1. Derived, not stored, so the footer needs only the entry count. */
  def numHashFunctions(expectedEntries: Long, numBytes: Int): Int = {
    val n = math.max(1L, expectedEntries).toDouble
    math.max(1, math.min(30, math.round(numBytes.toDouble * 8 / n * math.log(2)).toInt))
  }

  def create(expectedEntries: Long, fpp: Double): BloomFilter = {
    val bytes = optimalNumBytes(expectedEntries, fpp)
    new BloomFilter(new Array[Byte](bytes), numHashFunctions(expectedEntries, bytes))
  }
}
