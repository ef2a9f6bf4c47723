package lamina.lookup.io

/** Unsigned LEB128 encoding of non-negative ints: 7 bits a byte, low group first, high bit = more. */
object VarInt {
  val MaxBytes: Int = 5

  def size(v: Int): Int =
    if ((v & ~0x7f) == 0) 1
    else if ((v & ~0x3fff) == 0) 2
    else if ((v & ~0x1fffff) == 0) 3
    else if ((v & ~0xfffffff) == 0) 4
    else 5

  /** Writes `v` (>= 0) at `off`; returns the offset after it. */
  def write(b: Array[Byte], off: Int, v: Int): Int = {
    var x = v
    var p = off
    while ((x & ~0x7f) != 0) {
      b(p) = ((x & 0x7f) | 0x80).toByte
      x >>>= 7
      p += 1
    }
    b(p) = x.toByte
    p + 1
  }

  /** Result of decoding: the value in the low 32 bits, the encoded length in bits 32..39; -1 when the
   *  bytes in [off, end) do not hold a complete, non-negative varint. Packed to avoid allocation. */
  def read(b: Array[Byte], off: Int, end: Int): Long = {
    var result = 0
    var shift = 0
    var p = off
    while (p < end && shift < 35) {
      val x = b(p)
      result |= (x & 0x7f) << shift
      p += 1
      if (x >= 0) {
        return if (result < 0 || (shift == 28 && (x & 0x70) != 0)) -1L
        else (result & 0xffffffffL) | ((p - off).toLong << 32)
      }
      shift += 7
    }
    -1L
  }

  @inline def value(packed: Long): Int = packed.toInt
  @inline def length(packed: Long): Int = (packed >>> 32).toInt
}
