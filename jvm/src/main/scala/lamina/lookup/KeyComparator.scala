package lamina.lookup

/** Total order on keys given as byte ranges. Contract: consistent with equality of the byte ranges
 *  (compare == 0 only when the ranges are byte-equal), since lookups confirm a hit by comparing. */
trait KeyComparator extends Serializable {
  def compare(a: Array[Byte], aOff: Int, aLen: Int, b: Array[Byte], bOff: Int, bLen: Int): Int

  final def compare(a: Array[Byte], b: Array[Byte]): Int = compare(a, 0, a.length, b, 0, b.length)
}

/** Lexicographic order on unsigned bytes, a shorter key before its extensions: the default. */
object UnsignedBytesComparator extends KeyComparator {
  override def compare(a: Array[Byte], aOff: Int, aLen: Int, b: Array[Byte], bOff: Int, bLen: Int): Int =
    java.util.Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen)
}
