package lamina.lookup.sort

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException

/** Footers whose CRC holds but whose fields do not: each refused at the offset of the field at fault. */
class FooterTest extends AnyFunSuite {
  private val at = 1000L // where the footer starts: the file's length less the footer's

  private def decode(f: Footer): Footer = Footer.decode(f.encode(), "/x/file.sort", at)

  test("a footer round trips, with and without a bloom filter") {
    val withBloom = Footer(Some(BloomFilterHandle(BlockHandle(100, 200), 5000)), BlockHandle(400, 300), 7)
    assert(decode(withBloom) == withBloom)
    val without = Footer(None, BlockHandle(0, 500), 0)
    assert(decode(without) == without)
  }

  private def refused(f: Footer, fieldOffset: Int, words: String): Unit = {
    val e = intercept[CorruptFileException](decode(f))
    assert(e.offset == at + fieldOffset, e.getMessage)
    assert(e.getMessage.contains(words) && e.getMessage.contains("/x/file.sort"), e.getMessage)
  }

  test("bad expected entries, bloom or index handles and record counts name their field's offset") {
    val index = BlockHandle(400, 300)
    refused(Footer(Some(BloomFilterHandle(BlockHandle(100, 200), 0)), index, 7),
      Footer.BloomOffset + BlockHandle.EncodedLength, "expected entries")
    refused(Footer(Some(BloomFilterHandle(BlockHandle(300, 200), 10)), index, 7), Footer.BloomOffset, "block handle out of range")
    refused(Footer(None, BlockHandle(900, 200), 7), Footer.IndexOffset, "block handle out of range")
    refused(Footer(None, index, -1), Footer.RecordCountOffset, "record count")
  }
}
