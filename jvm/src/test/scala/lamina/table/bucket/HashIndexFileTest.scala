package lamina.table.bucket

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.manifest.IndexFileMeta

class HashIndexFileTest extends AnyFunSuite {
  private def meta(bytes: Array[Byte], count: Long) =
    IndexFileMeta(HashIndexFile.IndexType, "index-x-0", bytes.length.toLong, count, None, None)

  test("big-endian ints, no header: Paimon's bytes, decoded back") {
    val hashes = Array(0, 1, -1, Int.MinValue, Int.MaxValue, 0x01020304)
    val bytes = HashIndexFile.encode(hashes)
    assert(bytes.length === 24)
    assert(bytes.slice(20, 24).toSeq === Seq[Byte](1, 2, 3, 4))
    assert(bytes.slice(8, 12).toSeq === Seq[Byte](-1, -1, -1, -1))
    assert(HashIndexFile.decode(bytes, meta(bytes, 6), "f").toSeq === hashes.toSeq)
    assert(HashIndexFile.decode(Array.empty, meta(Array.empty, 0), "f").isEmpty)
  }

  test("a file whose size disagrees with its index manifest entry is corrupt, named") {
    val bytes = HashIndexFile.encode(Array(1, 2, 3))
    val short = intercept[CorruptFileException](HashIndexFile.decode(bytes.take(11), meta(bytes, 3), "/t/index/f"))
    assert(short.getMessage.contains("/t/index/f") && short.getMessage.contains("12 bytes"))
    val miscounted = intercept[CorruptFileException](HashIndexFile.decode(bytes, meta(bytes, 4), "/t/index/f"))
    assert(miscounted.getMessage.contains("4 hashes"))
    val torn = bytes.take(10)
    assert(intercept[CorruptFileException](HashIndexFile.decode(torn, meta(torn, 2), "f")).getMessage.contains("2 hashes"))
  }
}
