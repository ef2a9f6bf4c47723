package lamina.lookup.compression

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class CompressionTypeTest extends AnyFunSuite {

  test("zstd's hash table has one slot per 64 bytes of block, within [2^6, 2^13]") {
    import CompressionType.Zstd.hashLog
    assert(hashLog(64 * 1024) == 10)
    assert(hashLog(64 * 1024 + 100) == 10) // a block is cut just past the page size
    assert(hashLog(4096) == 6)
    assert(hashLog(1) == 6)
    assert(hashLog(0) == 6)
    assert(hashLog(512 * 1024) == 13)
    assert(hashLog(1 << 30) == 13)
  }

  test("every codec round-trips blocks of every size class, one thread alternating sizes") {
    val rnd = new Random(11)
    val sizes = Seq(0, 1, 100, 4096, 65 * 1024, 300 * 1024, 70, 64 * 1024, 2 * 1024 * 1024, 5000)
    for (codec <- CompressionType.values; size <- sizes) {
      // compressible: sorted counters with random tails
      val raw = new Array[Byte](size)
      var i = 0
      while (i < size) { raw(i) = (if (i % 16 < 10) (i / 4096).toByte else rnd.nextInt().toByte); i += 1 }
      val dst = new Array[Byte](codec.maxCompressedLength(size) + 7)
      val n = codec.compress(raw, 0, size, dst, 7)
      val back = new Array[Byte](size)
      assert(codec.decompress(dst, 7, n, back, back.length), s"${codec.name} at $size bytes")
      assert(java.util.Arrays.equals(raw, back), s"${codec.name} at $size bytes")
      if (codec != CompressionType.None && size >= 4096) assert(n < size, s"${codec.name} did not compress $size bytes")
    }
  }
}
