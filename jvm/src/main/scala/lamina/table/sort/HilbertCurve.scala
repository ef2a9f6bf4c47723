package lamina.table.sort

/** The position of a point on the Hilbert curve through an n-dimensional grid of `bits` bits a
 *  side (coordinates unsigned), by Skilling's transform ("Programming the Hilbert curve", AIP
 *  Conf. Proc. 707, 2004): the coordinates are turned into the curve's transposed index in place,
 *  whose bits, interleaved most significant first, are the index. Consecutive positions are
 *  neighbouring points (they differ by one in one coordinate), which keeps rows near in every
 *  coordinate closer together than Z-order does; unlike Z-order, the index does not grow with each
 *  coordinate alone. */
object HilbertCurve {

  /** The index of `coords` (each in its low `bits` bits) as ceil(n * bits / 8) bytes, big-endian,
   *  zero bits after the last. */
  def index(coords: Array[Long], bits: Int = 64): Array[Byte] = {
    require(bits >= 1 && bits <= 64, s"bits must be in 1..64, got $bits")
    val x = transpose(coords, bits)
    val n = x.length
    val out = new Array[Byte]((n * bits + 7) / 8)
    var o = 0
    var b = bits - 1
    while (b >= 0) {
      var i = 0
      while (i < n) {
        if (((x(i) >>> b) & 1L) != 0) out(o >>> 3) = (out(o >>> 3) | (0x80 >>> (o & 7))).toByte
        o += 1; i += 1
      }
      b -= 1
    }
    out
  }

  /** Skilling's AxesToTranspose on a copy of `coords`. */
  private def transpose(coords: Array[Long], bits: Int): Array[Long] = {
    val x = coords.clone()
    val n = x.length
    val m = 1L << (bits - 1)
    // inverse undo
    var q = m
    while (q != 0 && java.lang.Long.compareUnsigned(q, 1L) > 0) {
      val p = q - 1
      var i = 0
      while (i < n) {
        if ((x(i) & q) != 0) x(0) ^= p
        else { val t = (x(0) ^ x(i)) & p; x(0) ^= t; x(i) ^= t }
        i += 1
      }
      q >>>= 1
    }
    // Gray encode
    var i = 1
    while (i < n) { x(i) ^= x(i - 1); i += 1 }
    var t = 0L
    q = m
    while (java.lang.Long.compareUnsigned(q, 1L) > 0) {
      if ((x(n - 1) & q) != 0) t ^= q - 1
      q >>>= 1
    }
    i = 0
    while (i < n) { x(i) ^= t; i += 1 }
    x
  }
}
