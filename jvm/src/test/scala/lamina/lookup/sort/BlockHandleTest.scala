package lamina.lookup.sort

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException

class BlockHandleTest extends AnyFunSuite {
  private def decode(offset: Long, size: Int, limit: Long): BlockHandle =
    BlockHandle.decode(BlockHandle(offset, size).encode(), 0, limit, "/x/file.sort", 77)

  test("a handle round trips when its block and trailer end within the limit") {
    assert(decode(10, 85, 100) == BlockHandle(10, 85)) // 10 + 85 + a 5-byte trailer = 100
    assert(decode(0, 0, BlockTrailer.EncodedLength) == BlockHandle(0, 0))
  }

  test("a handle past the limit, negative, or whose end overflows a long is corruption at the handle's offset") {
    for ((offset, size) <- Seq((10L, 86), (-1L, 4), (0L, -1), (Long.MaxValue - 4, 0), (Long.MaxValue, Int.MaxValue))) {
      val e = intercept[CorruptFileException](decode(offset, size, 100))
      assert(
        e.getMessage.contains("/x/file.sort") && e.getMessage.contains("block handle out of range") &&
          e.getMessage.contains("at offset 77"), s"($offset, $size): ${e.getMessage}")
    }
  }
}
