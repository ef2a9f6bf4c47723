package lamina.lookup.cache

/** One cached page: `bytes[0, length)`, loaded into `buffer` at generation `generation` (a pooled
 *  array), or an array of its own (`buffer` null), which no load ever reuses. */
final class Page private (val bytes: Array[Byte], val length: Int, buffer: PageBuffer, generation: Long) {

  /** Whether `bytes` still hold this page. Always true for a page with an array of its own; for a pooled
   *  one, call it after reading: a false answer means what was read may come from a later page. */
  def isCurrent: Boolean = buffer == null || buffer.isAt(generation)

  /** Bytes held in memory (the array's length, which a pooled array may have beyond `length`). */
  def heldBytes: Int = bytes.length

  /** The first `n` bytes of this page, in the same array and generation. */
  def truncated(n: Int): Page = {
    require(n >= 0 && n <= length, s"a prefix of $n bytes of a page of $length")
    new Page(bytes, n, buffer, generation)
  }

  private[cache] def pooledBuffer: PageBuffer = buffer
}

object Page {

  /** A page that is the whole of `bytes`, never reused. */
  def of(bytes: Array[Byte]): Page = new Page(bytes, bytes.length, null, 0L)

  /** A page of `length` bytes in a new array of its own, to be filled by the caller. */
  def allocate(length: Int): Page = of(new Array[Byte](length))

  /** A page of `length` bytes in `buffer` at its current generation, to be filled by the caller. */
  private[cache] def in(buffer: PageBuffer, length: Int): Page =
    new Page(buffer.bytes, length, buffer, buffer.generation)
}
