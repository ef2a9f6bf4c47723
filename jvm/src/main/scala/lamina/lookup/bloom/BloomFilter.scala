package lamina.lookup.bloom

/** Blocked bloom filter over 64-bit key hashes: the bits are cut into blocks of 512 bits (one 64-byte
 *  cache line) and all probes of a key fall in one block, so adding or testing a key touches one line
 *  of memory instead of k scattered ones.
 *
 * Bit i of block b is bit (i mod 8) of byte 64 b + i / 8. For hash h with low 32 bits h1 and high 32
 * bits h2 (both unsigned): the block is (h2 * blocks) >>> 32, a multiply-shift mapping h2 uniformly onto
 * [0, blocks); probe j (0 <= j < numHashFunctions) sets bit c >>> 23 of it, the top 9 bits of
 * c = (h1 + j * d) mod 2^32 with d = rotl32(h2, 16) | 1.
 * Invariant: bits.length is a positive multiple of 64, at most [[BloomFilter.MaxBytes]], and every
 * hash added tests true.
 */
final class BloomFilter(val bits: Array[Byte], val numHashFunctions: Int) {
  require(BloomFilter.isValidSize(bits.length), s"bloom filter of ${bits.length} bytes")

  private val blocks: Long = bits.length / BloomFilter.BlockBytes

  def blockCount: Int = blocks.toInt

  /** The block all probes of `hash` fall in. */
  @inline def blockOf(hash: Long): Int = (((hash >>> 32) * blocks) >>> 32).toInt

  @inline private def blockStart(hash: Long): Int = blockOf(hash) * BloomFilter.BlockBytes

  def addHash(hash: Long): Unit = {
    val base = blockStart(hash)
    val h1 = hash.toInt
    val d = Integer.rotateLeft((hash >>> 32).toInt, 16) | 1
    var j = 0
    while (j < numHashFunctions) {
      val bit = (h1 + j * d) >>> 23
      val at = base + (bit >>> 3)
      bits(at) = (bits(at) | (1 << (bit & 7))).toByte
      j += 1
    }
  }

  def testHash(hash: Long): Boolean = {
    val base = blockStart(hash)
    val h1 = hash.toInt
    val d = Integer.rotateLeft((hash >>> 32).toInt, 16) | 1
    var j = 0
    while (j < numHashFunctions) {
      val bit = (h1 + j * d) >>> 23
      if ((bits(base + (bit >>> 3)) & (1 << (bit & 7))) == 0) return false
      j += 1
    }
    true
  }
}

object BloomFilter {

  /** Bytes of one block: a cache line, 512 bits. */
  val BlockBytes: Int = 64

  /** 2^29 bytes = 2^32 bits. */
  val MaxBytes: Int = 1 << 29

  def isValidSize(bytes: Int): Boolean = bytes > 0 && bytes <= MaxBytes && bytes % BlockBytes == 0

  /** Bytes of a filter for `expectedEntries` at false positive probability `fpp`:
   *  ceil(-n ln p / (ln 2)^2) bits, rounded up to whole blocks of 64 bytes, at least one block. */
  def optimalNumBytes(expectedEntries: Long, fpp: Double): Int = {
    val n = math.max(1L, expectedEntries).toDouble
    val bitCount = math.ceil(-n * math.log(fpp) / (math.log(2) * math.log(2)))
    val blocks = math.max(1L, math.ceil(bitCount / (8 * BlockBytes)).toLong)
    math.min(MaxBytes.toLong, blocks * BlockBytes).toInt
  }

  /** Hash functions for a filter of `numBytes` sized for `expectedEntries`: round(bits / n * ln 2),
   *  clamped to [1, 30]. Derived, not stored, so the footer needs only the entry count. */
  def numHashFunctions(expectedEntries: Long, numBytes: Int): Int = {
    val n = math.max(1L, expectedEntries).toDouble
    math.max(1, math.min(30, math.round(numBytes.toDouble * 8 / n * math.log(2)).toInt))
  }

  def create(expectedEntries: Long, fpp: Double): BloomFilter = {
    val bytes = optimalNumBytes(expectedEntries, fpp)
    new BloomFilter(new Array[Byte](bytes), numHashFunctions(expectedEntries, bytes))
  }
}
