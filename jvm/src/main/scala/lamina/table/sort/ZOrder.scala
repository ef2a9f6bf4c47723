package lamina.table.sort

/** The Z-order (Morton) value of a point: the bits of its coordinates interleaved, most significant
 *  first, one bit of each coordinate in turn (a coordinate that runs out of bits drops out). Each
 *  coordinate is an order-preserving byte form ([[OrderedBytes.fixed]]), so among points equal in
 *  every other coordinate the Z-value orders as the one that differs; sorted by it, rows that are
 *  close in every coordinate at once sit close together. */
object ZOrder {
  def interleave(columns: Array[Array[Byte]]): Array[Byte] = {
    val out = new Array[Byte](columns.map(_.length).sum)
    val maxBits = if (columns.isEmpty) 0 else columns.map(_.length).max * 8
    var o = 0
    var bit = 0
    while (bit < maxBits) {
      var c = 0
      while (c < columns.length) {
        val col = columns(c)
        if (bit < col.length * 8) {
          if ((col(bit >>> 3) & (0x80 >>> (bit & 7))) != 0) out(o >>> 3) = (out(o >>> 3) | (0x80 >>> (o & 7))).toByte
          o += 1
        }
        c += 1
      }
      bit += 1
    }
    out
  }
}
