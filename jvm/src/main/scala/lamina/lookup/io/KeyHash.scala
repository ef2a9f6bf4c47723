package lamina.lookup.io

/** The 64-bit key hash stored implicitly in lookup files (bloom filter bits, hash slots); changing it
 *  changes the format. Little-endian 8-byte words mixed in the manner of MurmurHash3 x64, then the
 *  length, then the MurmurHash3 64-bit finalizer. Specified in docs/format/lookup-store.md. */
object KeyHash {
  private final val C1 = 0x87c37b91114253d5L
  private final val C2 = 0x4cf5ad432745937fL
  final val Seed = 0x9747b28cL

  def hash64(b: Array[Byte], off: Int, len: Int): Long = {
    var h = Seed
    var p = off
    val end = off + len
    while (p + 8 <= end) {
      h ^= mixWord(LittleEndian.getLong(b, p))
      h = java.lang.Long.rotateLeft(h, 27) * 5 + 0x52dce729L
      p += 8
    }
    if (p < end) {
      var tail = 0L
      var shift = 0
      while (p < end) {
        tail |= (b(p) & 0xffL) << shift
        shift += 8
        p += 1
      }
      h ^= mixWord(tail)
    }
    h ^= len.toLong
    fmix64(h)
  }

  def hash64(b: Array[Byte]): Long = hash64(b, 0, b.length)

  private def mixWord(w: Long): Long = {
    var k = w * C1
    k = java.lang.Long.rotateLeft(k, 31)
    k * C2
  }

  private def fmix64(v: Long): Long = {
    var k = v
    k ^= k >>> 33
    k *= 0xff51afd7ed558ccdL
    k ^= k >>> 33
    k *= 0xc4ceb9fe1a85ec53L
    k ^= k >>> 33
    k
  }
}
