package lamina.lookup.sort

import java.io.File

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup._
import lamina.lookup.compression.CompressionType

class SortLookupStoreTest extends AnyFunSuite with LookupTestSupport {

  private def factory(options: LookupOptions, comparator: KeyComparator = UnsignedBytesComparator) =
    new SortLookupStoreFactory(options, newCache(), comparator)

  /** Writes `entries`, then checks every hit, `misses` absent keys, and a full ordered scan. */
  private def roundTrip(
      options: LookupOptions, entries: IndexedSeq[(Array[Byte], Array[Byte])], seed: Long): SortLookupStoreReader =
    withTempDir { dir =>
      val f = factory(options)
      val file = new File(dir, "data.sort")
      writeAll(f, file, entries)
      val reader = f.createReader(file)
      try {
        assert(reader.recordCount == entries.size)
        entries.foreach { case (k, v) => assert(hex(reader.lookup(k)) == hex(v), s"key ${hex(k)}") }
        val present = entries.map(_._1.toSeq).toSet
        val rnd = new Random(seed)
        (0 until 500).foreach { _ =>
          val k = new Array[Byte](1 + rnd.nextInt(20))
          rnd.nextBytes(k)
          if (!present.contains(k.toSeq)) assert(reader.lookup(k) == null)
        }
        val scanned = reader.iterator().map { case (k, v) => hex(k) + "=" + hex(v) }.toIndexedSeq
        assert(scanned == entries.map { case (k, v) => hex(k) + "=" + hex(v) })
        reader
      } finally reader.close()
    }

  for {
    compression <- CompressionType.values
    bloom <- Seq(true, false)
  } test(s"randomized round trip, unaligned blocks, compression ${compression.name}, bloom $bloom") {
    val entries = randomEntries(seed = 42, n = 5000, minKey = 1, maxKey = 24, minValue = 0, maxValue = 100)
    roundTrip(LookupOptions(cachePageSize = 1024, bloomFilterEnabled = bloom, compression = compression), entries, 7)
  }

  test("aligned blocks: fixed-size keys and values") {
    val entries = randomEntries(seed = 1, n = 3000, minKey = 16, maxKey = 16, minValue = 8, maxValue = 8)
    roundTrip(LookupOptions(cachePageSize = 512, compression = CompressionType.None), entries, 2)
    val w = new BlockWriter(64)
    entries.take(3).foreach { case (k, v) => w.add(k, v) }
    val block = w.finish()
    assert(block(w.finishedLength - 1) == BlockWriter.Aligned)
    w.add(Array[Byte](1), Array.emptyByteArray)
    assert(w.finish()(w.finishedLength - 1) == BlockWriter.Unaligned)
  }

  test("compressible blocks are stored compressed and read back") {
    val entries = (0 until 2000).map(i => (f"key-$i%08d".getBytes, Array.fill[Byte](50)((i % 3).toByte)))
    withTempDir { dir =>
      val sizes = CompressionType.values.map { c =>
        val file = new File(dir, s"${c.name}.sort")
        c -> writeAll(factory(LookupOptions(compression = c, cachePageSize = 4096)), file, entries)
      }.toMap
      assert(sizes(CompressionType.Zstd) < sizes(CompressionType.None) / 4)
      assert(sizes(CompressionType.Lz4) < sizes(CompressionType.None) / 4)
    }
    roundTrip(LookupOptions(compression = CompressionType.Zstd, cachePageSize = 4096), entries, 3)
  }

  for (compression <- CompressionType.values)
    test(s"background compression writes the same bytes as the writing thread, ${compression.name}") {
      // dozens of blocks, so the writer runs ahead of the encoding thread and waits for free blocks
      val entries = randomEntries(seed = 11, n = 40000, minKey = 4, maxKey = 20, minValue = 0, maxValue = 40)
        .zipWithIndex.map { case ((k, v), i) => (k, if (i % 3 == 0) Array.fill[Byte](v.length)(7) else v) }
      withTempDir { dir =>
        def bytesOf(background: Boolean): Array[Byte] = {
          val file = new File(dir, s"bg-$background.sort")
          val options = LookupOptions(cachePageSize = DataBlockSink.MinBackgroundBlockSize, compression = compression,
            backgroundCompression = background)
          writeAll(factory(options), file, entries)
          java.nio.file.Files.readAllBytes(file.toPath)
        }
        val inline = bytesOf(background = false)
        assert(java.util.Arrays.equals(bytesOf(background = true), inline))
      }
      roundTrip(LookupOptions(cachePageSize = DataBlockSink.MinBackgroundBlockSize, compression = compression), entries, 5)
    }

  test("a write error on the encoding thread reaches the writer, which does not hang") {
    val full = new File("/dev/full") // every write fails: no space left on device
    assume(full.exists(), "needs /dev/full")
    val options = LookupOptions(cachePageSize = DataBlockSink.MinBackgroundBlockSize, compression = CompressionType.Zstd)
    val w = factory(options).createWriter(full, 1000000)
    val rnd = new Random(3)
    val e = intercept[java.io.IOException] {
      // random values do not compress: some MBs reach the file's 1 MiB buffer, whose flush fails
      (0 until 1000000).foreach { i =>
        val v = new Array[Byte](100)
        rnd.nextBytes(v)
        w.put(f"key-$i%09d".getBytes, v)
      }
      w.finish()
    }
    assert(e.getMessage.startsWith("Writing lookup file full failed"), e.getMessage)
  }

  test("a finish that fails closes the file, and the writer refuses to go on") {
    val full = new File("/dev/full")
    assume(full.exists(), "needs /dev/full")
    def openOnFull(): Int = Option(new File("/proc/self/fd").listFiles()).getOrElse(Array.empty[File]).count { fd =>
      try java.nio.file.Files.readSymbolicLink(fd.toPath).toString == full.getPath
      catch { case _: java.io.IOException => false }
    }
    val before = openOnFull()
    // few keys stay in the 1 MiB write buffer; the bloom filter for 5M expected keys (megabytes) does
    // not, and writing it fails in finish, after the data blocks
    val w = factory(LookupOptions(compression = CompressionType.None)).createWriter(full, 5000000)
    (0 until 10).foreach(i => w.put(f"key-$i%03d".getBytes, Array[Byte](1)))
    assert(openOnFull() == before + 1)
    intercept[java.io.IOException](w.finish())
    assert(openOnFull() == before, "the file is closed after a failed finish")
    val again = intercept[IllegalStateException](w.finish())
    assert(again.getMessage == "Writing lookup file /dev/full failed; it is incomplete")
    intercept[IllegalStateException](w.put("key-999".getBytes, Array[Byte](1)))
  }

  for (background <- Seq(false, true))
    test(s"after incompressible blocks, compressible ones are compressed again (background $background)") {
      // random values, then a long stretch of repetitive ones: the writer stops trying to compress the
      // first, and a probe finds the second
      val rnd = new Random(9)
      // 200 random bytes a value: the keys' common prefixes alone save less than 1/8 of a block
      val entries = (0 until 12000).map { i =>
        val v = new Array[Byte](200)
        if (i < 1500) rnd.nextBytes(v) else java.util.Arrays.fill(v, (i % 5).toByte)
        (f"key-$i%08d".getBytes, v)
      }
      withTempDir { dir =>
        def size(c: CompressionType) = writeAll(factory(LookupOptions(compression = c,
              cachePageSize = DataBlockSink.MinBackgroundBlockSize, backgroundCompression = background)),
          new File(dir, s"${c.name}.sort"), entries)
        val raw = size(CompressionType.None)
        // the repetitive 90% shrinks to a fraction: compressed, not merely the stretch's first blocks
        assert(size(CompressionType.Zstd) < raw / 4, s"${size(CompressionType.Zstd)} of $raw")
      }
      roundTrip(LookupOptions(compression = CompressionType.Zstd, cachePageSize = DataBlockSink.MinBackgroundBlockSize,
          backgroundCompression = background), entries, 4)
    }

  test("incompressible blocks stay uncompressed") {
    val raw = new Array[Byte](4096)
    new Random(5).nextBytes(raw)
    val scratch = new StoredBlock.Scratch
    val n = StoredBlock.encode(raw, raw.length, CompressionType.Zstd, scratch)
    assert(n == raw.length + BlockTrailer.EncodedLength)
    assert(scratch.bytes(raw.length) == CompressionType.None.id)
  }

  test("empty file") {
    withTempDir { dir =>
      val file = new File(dir, "empty.sort")
      val f = factory(LookupOptions())
      val len = writeAll(f, file, Nil)
      assert(len == file.length())
      val r = f.createReader(file)
      try {
        assert(r.lookup(Array[Byte](1, 2, 3)) == null)
        assert(r.lookup(Array.emptyByteArray) == null)
        assert(!r.iterator().hasNext)
        assert(r.recordCount == 0)
      } finally r.close()
    }
  }

  test("single very large value") {
    val big = new Array[Byte](12 << 20)
    new Random(9).nextBytes(big)
    val entries = IndexedSeq(("a".getBytes, "small".getBytes), ("b".getBytes, big), ("c".getBytes, Array.emptyByteArray))
    roundTrip(LookupOptions(compression = CompressionType.Lz4), entries, 4)
  }

  test("out-of-order and duplicate keys are rejected") {
    withTempDir { dir =>
      val file = new File(dir, "bad.sort")
      val w = factory(LookupOptions()).createWriter(file, 10)
      w.put(Array[Byte](1, 2), Array.emptyByteArray)
      val e = intercept[BadInputException](w.put(Array[Byte](1, 1), Array.emptyByteArray))
      assert(e.getMessage == s"Keys of lookup file ${file.getPath} must be put in strictly ascending order: " +
        "key 0x0101 after 0x0102")
      val d = intercept[BadInputException](w.put(Array[Byte](1, 2), Array.emptyByteArray))
      assert(d.getMessage == s"Keys of lookup file ${file.getPath} must be put in strictly ascending order: " +
        "key 0x0102 after 0x0102")
      w.close()
    }
  }

  test("keys compare as unsigned bytes") {
    val entries = IndexedSeq(Array[Byte](0x01), Array[Byte](0x7f), Array[Byte](0x80.toByte), Array[Byte](0xff.toByte))
      .map(k => (k, k))
    roundTrip(LookupOptions(), entries, 5)
  }

  test("pluggable comparator: descending order") {
    val descending = new KeyComparator {
      override def compare(a: Array[Byte], aOff: Int, aLen: Int, b: Array[Byte], bOff: Int, bLen: Int): Int =
        -UnsignedBytesComparator.compare(a, aOff, aLen, b, bOff, bLen)
    }
    val entries = randomEntries(seed = 11, n = 2000, minKey = 4, maxKey = 8, minValue = 1, maxValue = 4).reverse
    withTempDir { dir =>
      val f = factory(LookupOptions(cachePageSize = 256), descending)
      val file = new File(dir, "desc.sort")
      writeAll(f, file, entries)
      val r = f.createReader(file)
      try {
        entries.foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v)) }
        assert(r.iterator().map(e => hex(e._1)).toIndexedSeq == entries.map(e => hex(e._1)))
      } finally r.close()
    }
  }

  test("iterator seeks to the first key at or after the target") {
    val entries = (0 until 1000).map(i => (f"k$i%05d".getBytes, s"v$i".getBytes)).filter(_ => true)
      .zipWithIndex.filter(_._2 % 2 == 0).map(_._1)
    withTempDir { dir =>
      val f = factory(LookupOptions(cachePageSize = 128))
      val file = new File(dir, "seek.sort")
      writeAll(f, file, entries)
      val r = f.createReader(file)
      try {
        val it = r.iterator()
        it.seek("k00501".getBytes)
        assert(new String(it.next()._1) == "k00502")
        assert(new String(it.next()._1) == "k00504")
        it.seek("k00000".getBytes)
        assert(new String(it.next()._1) == "k00000")
        it.seek("k00998".getBytes)
        assert(new String(it.next()._1) == "k00998")
        assert(!it.hasNext)
        it.seek("k00999".getBytes)
        assert(!it.hasNext)
        it.seek("a".getBytes)
        assert(it.size == entries.size)
      } finally r.close()
    }
  }

  test("an iterator and lookups read right while evicted blocks' arrays are reused for other blocks") {
    // Fixed-size entries: every block has the same length, so an evicted block's array fits the next.
    val entries = (0 until 2000).map(i => (f"key$i%05d".getBytes, f"val$i%05d".getBytes))
    for (compression <- Seq(CompressionType.None, CompressionType.Zstd)) withTempDir { dir =>
      // 64 KiB index pool, 16 KiB data pool: about ten 1 KiB blocks cached, one array pooled.
      val manager = new lamina.lookup.cache.CacheManager(80 << 10, 0.8)
      val f = new SortLookupStoreFactory(LookupOptions(cachePageSize = 1024, compression = compression), manager,
        UnsignedBytesComparator)
      val file = new File(dir, "recycled.sort")
      writeAll(f, file, entries)
      val r = f.createReader(file)
      try {
        val it = r.iterator()
        val head = (0 until 10).map(_ => new String(it.next()._1))
        assert(head == entries.take(10).map(e => new String(e._1)))
        // Lookups across the file evict the iterator's block; its array then holds another block.
        (100 until 2000 by 37).foreach { i =>
          assert(hex(r.lookup(entries(i)._1)) == hex(entries(i)._2), s"key $i")
        }
        assert(manager.bufferPool.reuseCount > 0, "arrays were reused")
        val rest = it.map { case (k, v) => new String(k) + "=" + new String(v) }.toIndexedSeq
        assert(rest == entries.drop(10).map { case (k, v) => new String(k) + "=" + new String(v) })
      } finally r.close()
    }
  }
}
