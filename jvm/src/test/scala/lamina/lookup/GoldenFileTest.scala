package lamina.lookup

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.compression.CompressionType
import lamina.lookup.sort._

class GoldenFileTest extends AnyFunSuite with LookupTestSupport {

  for (g <- GoldenFiles.all) {
    test(s"golden ${g.name} reads back every entry") {
      val factory = LookupStoreFactory.create(g.options, newCache())
      val r = factory.createReader(GoldenFiles.resource(g.name))
      try {
        GoldenFiles.entries.foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v)) }
        assert(r.lookup("key-040".getBytes) == null)
        assert(r.lookup("key".getBytes) == null)
        r match {
          case s: SortLookupStoreReader =>
            assert(s.iterator().map(e => hex(e._1)).toSeq == GoldenFiles.entries.map(e => hex(e._1)))
          case _ =>
        }
      } finally r.close()
    }

    test(s"golden ${g.name} is rewritten byte for byte") {
      withTempDir { dir =>
        val file = new File(dir, g.name)
        writeAll(LookupStoreFactory.create(g.options, newCache()), file, GoldenFiles.entries)
        val expected = Files.readAllBytes(GoldenFiles.resource(g.name).toPath)
        val actual = Files.readAllBytes(file.toPath)
        assert(actual.length == expected.length)
        val firstDiff = expected.indices.find(i => expected(i) != actual(i))
        assert(firstDiff.isEmpty, s"first differing byte at ${firstDiff.getOrElse(-1)}")
      }
    }
  }

  /** (compression id, raw block flag) of every data block of a sort file. */
  private def dataBlocks(name: String): Seq[(Byte, Byte)] = {
    val file = GoldenFiles.resource(name)
    val bytes = Files.readAllBytes(file.toPath)
    val footerAt = bytes.length - Footer.EncodedLength
    val footer = Footer.decode(java.util.Arrays.copyOfRange(bytes, footerAt, bytes.length), name, footerAt)
    def stored(h: BlockHandle) = java.util.Arrays.copyOfRange(bytes, h.offset.toInt, h.end.toInt)
    val index = new BlockReader(StoredBlock.decode(stored(footer.index), name, footer.index.offset),
      UnsignedBytesComparator, name, footer.index.offset)
    (0 until index.count).map { i =>
      val h = index.handle(i, footer.index.offset)
      val raw = StoredBlock.decode(stored(h), name, h.offset)
      (bytes(h.offset.toInt + h.size), raw(raw.length - 1))
    }
  }

  test("golden sort files hold aligned and unaligned blocks, compressed and not") {
    val plain = dataBlocks("sort-none.lookup")
    assert(plain.map(_._1).toSet == Set(CompressionType.None.id))
    assert(plain.map(_._2).toSet == Set(BlockWriter.Aligned, BlockWriter.Unaligned))
    val lz4 = dataBlocks("sort-lz4.lookup")
    assert(lz4.map(_._1).contains(CompressionType.Lz4.id))
  }
}
