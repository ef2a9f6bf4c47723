package lamina.lookup.bloom

/** Bloom filter over 64-bit key hashes, its bits in a byte array (bit i = byte i/8, bit i%8).
 *
 * Probe j (0 <= j < numHashFunctions) of hash h sets bit (c * numBits) >>> 32, where
 * c = (h1 + j * h2) mod 2^32 as unsigned, h1 the low and h2 the high 32 bits of h: a multiply-shift
 * reduction, cheaper than a modulo, mapping c uniformly onto [0, numBits).
 * Invariant: 0 < numBits = 8 * bits.length <= 2^32, and every hash added tests true.
 */
final class BloomFilter(val bits: Array[Byte], val numHashFunctions: Int) {
  private val numBits: Long = bits.length.toLong * 8

  require(bits.length > 0 && bits.length <= BloomFilter.MaxBytes, s"bloom filter of ${bits.length} bytes")

  def addHash(hash: Long): Unit = {
    val h1 = hash.toInt
    val h2 = (hash >>> 32).toInt
    var j = 0
    while (j < numHashFunctions) {
      val bit = ((h1 + j * h2) & 0xffffffffL) * numBits >>> 32
      bits((bit >>> 3).toInt) = (bits((bit >>> 3).toInt) | (1 << (bit & 7).toInt)).toByte
      j += 1
    }
  }

  def testHash(hash: Long): Boolean = {
    val h1 = hash.toInt
    val h2 = (hash >>> 32).toInt
    var j = 0
    while (j < numHashFunctions) {
      val bit = ((h1 + j * h2) & 0xffffffffL) * numBits >>> 32
      if ((bits((bit >>> 3).toInt) & (1 << (bit & 7).toInt)) == 0) return false
      j += 1
    }
    true
  }
}

object BloomFilter {
  /** 2^29 bytes = 2^32 bits, the most the multiply-shift reduction addresses. */
  val MaxBytes: Int = 1 << 29

  /** Bytes of a filter for `expectedEntries` at false positive probability `fpp`:
   *  ceil(-n ln p / (ln 2)^2) bits, rounded up to whole bytes, at least one byte. */
  def optimalNumBytes(expectedEntries: Long, fpp: Double): Int = {
    val n = math.max(1L, expectedEntries).toDouble
    val bitCount = math.ceil(-n * math.log(fpp) / (math.log(2) * math.log(2)))
    math.max(1L, math.min(MaxBytes.toLong, math.ceil(bitCount / 8).toLong)).toInt
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
