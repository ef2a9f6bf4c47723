package lamina.format.fileindex

import java.nio.ByteBuffer

import lamina.errors.CorruptFileException

/** One column's bloom filter in a file index (index type `bloom-filter`, Apache Paimon's
 *  `BloomFilterFileIndex` over its `BloomFilter64`), fed [[FastHash]] hashes of the column's non-null
 *  values.
 *
 *  Bytes: `numHashFunctions:i32` (big-endian) then the bit set, `numBits / 8` bytes, bit `i` at byte
 *  `i >>> 3`, mask `1 << (i & 7)`. Sizing from (items, fpp), as Paimon's: `nb = (int)(-items * ln fpp
 *  / ln(2)^2)`, `numBits = nb + 8 - nb % 8` (so at least one byte), `numHashFunctions = max(1,
 *  round(numBits / items * ln 2))`. Hash `h` sets bits `(c < 0 ? ~c : c) % numBits` for `c = (int) h +
 *  i * (int)(h >>> 32)`, `i` in `1..numHashFunctions` (32-bit arithmetic). A probe that finds one of
 *  its bits clear proves the value absent. */
final class BloomFilterIndex private (val numHashFunctions: Int, bits: Array[Byte]) {
  private val numBits = bits.length * 8

  def add(hash: Long): Unit = positions(hash).foreach(p => bits(p >>> 3) = (bits(p >>> 3) | (1 << (p & 7))).toByte)

  /** False only if no value with this hash was added. */
  def mightContain(hash: Long): Boolean = positions(hash).forall(p => (bits(p >>> 3) & (1 << (p & 7))) != 0)

  private def positions(hash: Long): Iterator[Int] = {
    val h1 = hash.toInt
    val h2 = (hash >>> 32).toInt
    Iterator.range(1, numHashFunctions + 1).map { i =>
      val c = h1 + i * h2
      (if (c < 0) ~c else c) % numBits
    }
  }

  def encode(): Array[Byte] = ByteBuffer.allocate(4 + bits.length).putInt(numHashFunctions).put(bits).array()
}

object BloomFilterIndex {
  val IndexType = "bloom-filter"
  val DefaultItems = 1000000
  val DefaultFpp = 0.1

  /** An empty filter sized for `items` values at false-positive probability `fpp`. */
  def create(items: Long, fpp: Double): BloomFilterIndex = {
    val nb = (-items * math.log(fpp) / (math.log(2) * math.log(2))).toInt
    val numBits = nb + (8 - nb % 8)
    new BloomFilterIndex(math.max(1, math.round(numBits.toDouble / items * math.log(2)).toInt), new Array[Byte](numBits / 8))
  }

  /** The filter in `bytes`, the `bloom-filter` index of `column` in the file index of `source`. */
  def decode(source: String, column: String, bytes: Array[Byte]): BloomFilterIndex = {
    def corrupt(expected: String, actual: String) =
      throw new CorruptFileException(source, -1, expected, actual, s"bloom filter of column $column")
    if (bytes.length < 5) corrupt("at least 5 bytes", s"${bytes.length}")
    val n = ByteBuffer.wrap(bytes).getInt()
    if (n < 1 || n > 64) corrupt("1 to 64 hash functions", n.toString)
    new BloomFilterIndex(n, java.util.Arrays.copyOfRange(bytes, 4, bytes.length))
  }
}
