package lamina.lookup.io

import java.util.zip.CRC32C

/** The CRC32C of each page of `pageSize` bytes of a byte stream, pages counted from the stream's
 *  first byte, the last page possibly short. Fed in pieces of any size; not thread-safe. */
final class PageChecksums(pageSize: Int) {
  require(pageSize > 0, s"page size $pageSize")
  private val crc = new CRC32C()
  private var inPage = 0
  private var sums = new Array[Int](16)
  private var count = 0

  def update(b: Array[Byte], off: Int, len: Int): Unit = {
    var at = off
    val end = off + len
    while (at < end) {
      val n = math.min(end - at, pageSize - inPage)
      crc.update(b, at, n)
      inPage += n
      at += n
      if (inPage == pageSize) closePage()
    }
  }

  private def closePage(): Unit = {
    if (count == sums.length) sums = java.util.Arrays.copyOf(sums, count * 2)
    sums(count) = crc.getValue.toInt
    count += 1
    crc.reset()
    inPage = 0
  }

  /** The checksums of all pages, the last one closed where the stream ends. */
  def finish(): Array[Int] = {
    if (inPage > 0) closePage()
    java.util.Arrays.copyOf(sums, count)
  }
}
