package lamina.format

/** The 32-bit Murmur3 variant of Paimon's `MurmurHashUtils.hashBytesByWords`: seed 42, the input read
 *  as little-endian 4-byte words (the length must be a multiple of 4; rows always are, being 8-aligned),
 *  no tail handling, and the byte length mixed in by the finalizer. `BinaryRow.hashCode` is this hash
 *  over the row bytes. */
object MurmurHash {
  val DefaultSeed = 42
  private val C1 = 0xcc9e2d51
  private val C2 = 0x1b873593

  def hashBytesByWords(bytes: Array[Byte], offset: Int, length: Int, seed: Int = DefaultSeed): Int = {
    require(length % 4 == 0, s"hashBytesByWords needs a length that is a multiple of 4, got $length")
    require(offset >= 0 && length >= 0 && offset.toLong + length <= bytes.length,
      s"range [$offset, ${offset.toLong + length}) is outside an array of ${bytes.length} bytes")
    var h1 = seed
    var i = 0
    while (i < length) {
      val p = offset + i
      val word = (bytes(p) & 0xff) | ((bytes(p + 1) & 0xff) << 8) | ((bytes(p + 2) & 0xff) << 16) | (bytes(p + 3) << 24)
      h1 = mixH1(h1, mixK1(word))
      i += 4
    }
    fmix(h1 ^ length)
  }

  /** The state after one more little-endian word: [[hashBytesByWords]] word by word, for callers that
   *  compute the words instead of reading them from bytes. Start from the seed, end with [[finish]]. */
  def mixWord(h: Int, word: Int): Int = mixH1(h, mixK1(word))

  /** The hash of `length` bytes from the state after their last word. */
  def finish(h: Int, length: Int): Int = fmix(h ^ length)

  private def mixK1(k: Int): Int = Integer.rotateLeft(k * C1, 15) * C2

  private def mixH1(h: Int, k: Int): Int = Integer.rotateLeft(h ^ k, 13) * 5 + 0xe6546b64

  private def fmix(h0: Int): Int = {
    var h = h0
    h ^= h >>> 16
    h *= 0x85ebca6b
    h ^= h >>> 13
    h *= 0xc2b2ae35
    h ^ (h >>> 16)
  }
}
