package lamina.lookup.sort

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.lookup._
import lamina.lookup.cache.CacheManager
import lamina.lookup.compression.CompressionType

/** Reading rules of [[SortLookupStoreReader]] beyond a plain round trip: structures larger than the
 *  cache can hold, and the footer's record count. */
class SortLookupStoreReaderTest extends AnyFunSuite with LookupTestSupport {

  /** 5000 entries in 64-byte blocks: about 1250 data blocks, an index block of about 35 KB and a
   *  bloom filter of about 4 KB. */
  private val entries = (0 until 5000).map(i => (f"key-$i%06d".getBytes("US-ASCII"), Array[Byte](i.toByte)))
  private val smallPages = LookupOptions(cachePageSize = 64, compression = CompressionType.None)

  private def withFile[T](options: LookupOptions)(f: File => T): T = withTempDir { dir =>
    val file = new File(dir, "data.sort")
    writeAll(new SortLookupStoreFactory(options, newCache(), UnsignedBytesComparator), file, entries)
    f(file)
  }

  // An 8 KiB cache: a 2 KiB index pool and a 6 KiB data pool; or one shared pool of 3 KiB.
  for ((budget, ratio) <- Seq((8L << 10, 0.25), (3L << 10, 0.0)))
    test(s"an index block and bloom filter larger than their pool are read once, not per lookup (ratio $ratio)") {
      withFile(smallPages) { file =>
        val manager = new CacheManager(budget, ratio)
        val r = new SortLookupStoreReader(file, manager, UnsignedBytesComparator)
        try {
          val probed = (100 until 110).map(entries)
          def pass(): Unit = probed.foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v), hex(k)) }
          pass() // loads the few data blocks these keys lie in
          val loads = manager.loadCount
          (0 until 20).foreach(_ => pass())
          assert(manager.loadCount == loads, "200 lookups of cached data blocks loaded nothing")
          // held by the reader, beyond the budget: the index block with its search index, and the bloom filter
          val bloomBytes = r.footer.bloomFilter.get.handle.size
          assert(r.heldBeyondBudget)
          assert(manager.heldBeyondBudgetBytes > bloomBytes + r.footer.index.size, manager.heldBeyondBudgetBytes)
          assert(manager.dataPoolUsedBytes + manager.indexPoolUsedBytes <= budget)
        } finally r.close()
        assert(manager.heldBeyondBudgetBytes == 0, "given back on close")
      }
    }

  test("an index block and bloom filter that fit their pool go through the cache") {
    withFile(smallPages) { file =>
      val manager = newCache(bytes = 1L << 20)
      val r = new SortLookupStoreReader(file, manager, UnsignedBytesComparator)
      try {
        entries.take(100).foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v)) }
        assert(!r.heldBeyondBudget && manager.heldBeyondBudgetBytes == 0)
        assert(manager.indexPoolUsedBytes > r.footer.index.size, "the index block and bloom filter are cached")
      } finally r.close()
    }
  }

  /** Rewrites the footer of `file` with `count` records; its CRC is computed anew, so it is intact.
   *  Returns the file offset of the record count. */
  private def rewriteRecordCount(file: File, count: Long): Long = {
    val bytes = Files.readAllBytes(file.toPath)
    val at = bytes.length - Footer.EncodedLength
    val footer = Footer.decode(java.util.Arrays.copyOfRange(bytes, at, bytes.length), file.getPath, at)
    System.arraycopy(footer.copy(recordCount = count).encode(), 0, bytes, at, Footer.EncodedLength)
    Files.write(file.toPath, bytes)
    at + Footer.RecordCountOffset
  }

  private def assertNames(e: CorruptFileException, file: File, offset: Long, expected: String, actual: String): Unit = {
    assert(e.path == file.getAbsolutePath && e.offset == offset, e.getMessage)
    assert(e.expected == expected && e.actual == actual, e.getMessage)
  }

  for (wrong <- Seq(entries.size + 1L, entries.size - 1L))
    test(s"a full iteration that finds another count than the footer's ($wrong) is corruption") {
      withFile(smallPages) { file =>
        val offset = rewriteRecordCount(file, wrong)
        val r = new SortLookupStoreReader(file, newCache(), UnsignedBytesComparator)
        try {
          assert(r.recordCount == wrong)
          entries.take(50).foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v)) }
          val partial = r.iterator()
          partial.seek(entries(10)._1)
          assert(partial.size == entries.size - 10, "an iteration that did not start at the first entry is not checked")
          val it = r.iterator()
          val e = intercept[CorruptFileException](it.foreach(_ => ()))
          assertNames(e, file, offset, s"$wrong records (the footer's count)", s"${entries.size} records in a full iteration")
        } finally r.close()
      }
    }

  test("a footer counting fewer records than there are data blocks is refused at open") {
    withFile(smallPages) { file =>
      val blocks = {
        val bytes = Files.readAllBytes(file.toPath)
        val at = bytes.length - Footer.EncodedLength
        val index = Footer.decode(java.util.Arrays.copyOfRange(bytes, at, bytes.length), file.getPath, at).index
        val stored = java.util.Arrays.copyOfRange(bytes, index.offset.toInt, index.end.toInt)
        new BlockReader(StoredBlock.decode(stored, file.getPath, index.offset), UnsignedBytesComparator, file.getPath,
          index.offset).count
      }
      assert(blocks > 1000)
      for (wrong <- Seq(blocks - 1L, 0L)) {
        val offset = rewriteRecordCount(file, wrong)
        val e = intercept[CorruptFileException](new SortLookupStoreReader(file, newCache(), UnsignedBytesComparator))
        assertNames(e, file, offset, s"a record count of at least $blocks (one per data block)", s"$wrong")
      }
    }
  }

  test("a footer counting records in a file without data blocks is refused at open") {
    withTempDir { dir =>
      val file = new File(dir, "empty.sort")
      writeAll(new SortLookupStoreFactory(smallPages, newCache(), UnsignedBytesComparator), file, Nil)
      val offset = rewriteRecordCount(file, 3)
      val e = intercept[CorruptFileException](new SortLookupStoreReader(file, newCache(), UnsignedBytesComparator))
      assertNames(e, file, offset, "a record count of 0 (no data blocks)", "3")
    }
  }
}
