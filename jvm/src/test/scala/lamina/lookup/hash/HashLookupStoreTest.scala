package lamina.lookup.hash

import java.io.File

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup._

class HashLookupStoreTest extends AnyFunSuite with LookupTestSupport {

  private def factory(pageSize: Int = 4096) =
    LookupStoreFactory.create(LookupOptions(localFileType = LocalFileType.Hash, cachePageSize = pageSize), newCache())

  private def roundTrip(entries: Seq[(Array[Byte], Array[Byte])], pageSize: Int, seed: Long): Unit =
    withTempDir { dir =>
      val f = factory(pageSize)
      val file = new File(dir, "data.hash")
      writeAll(f, file, entries)
      val r = f.createReader(file)
      try {
        entries.foreach { case (k, v) => assert(hex(r.lookup(k)) == hex(v), s"key ${hex(k)}") }
        val present = entries.map(_._1.toSeq).toSet
        val rnd = new Random(seed)
        (0 until 2000).foreach { _ =>
          val k = new Array[Byte](1 + rnd.nextInt(12))
          rnd.nextBytes(k)
          if (!present.contains(k.toSeq)) assert(r.lookup(k) == null)
        }
      } finally r.close()
    }

  test("factory follows lookup.local-file-type") {
    assert(factory().isInstanceOf[HashLookupStoreFactory])
    assert(LookupStoreFactory.create(LookupOptions(), newCache()).isInstanceOf[lamina.lookup.sort.SortLookupStoreFactory])
  }

  test("randomized round trip, keys of many lengths in random order") {
    val entries = new Random(3).shuffle(randomEntries(seed = 21, n = 6000, minKey = 1, maxKey = 12, minValue = 0, maxValue = 200))
    roundTrip(entries, pageSize = 512, seed = 8)
  }

  test("fixed-size keys, empty values, tiny pages") {
    roundTrip(randomEntries(seed = 22, n = 3000, minKey = 16, maxKey = 16, minValue = 0, maxValue = 0), pageSize = 7, seed = 9)
  }

  test("empty key and empty file") {
    roundTrip(Seq((Array.emptyByteArray, "empty".getBytes)), pageSize = 4096, seed = 1)
    roundTrip(Nil, pageSize = 4096, seed = 1)
  }

  test("single very large value spanning many pages") {
    val big = new Array[Byte](9 << 20)
    new Random(4).nextBytes(big)
    roundTrip(Seq(("big".getBytes, big), ("small".getBytes, Array[Byte](1))), pageSize = 64 * 1024, seed = 2)
  }

  test("duplicate keys are rejected") {
    withTempDir { dir =>
      val file = new File(dir, "dup.hash")
      val w = factory().createWriter(file, 2)
      w.put(Array[Byte](9, 9), Array[Byte](1))
      w.put(Array[Byte](9, 9), Array[Byte](2))
      val e = intercept[BadInputException](w.finish())
      assert(e.getMessage == s"Duplicate key 0x0909 in hash lookup file ${file.getPath}")
      val again = intercept[IllegalStateException](w.close())
      assert(again.getMessage == s"Writing lookup file ${file.getPath} failed; it is incomplete")
    }
  }

  test("large sections, laid out by two threads: every key found, the same bytes every time") {
    val n = HashLookupStoreWriter.ParallelMinKeys * 3
    val entries = randomEntries(seed = 23, n = n, minKey = 6, maxKey = 6, minValue = 0, maxValue = 3)
    roundTrip(entries, pageSize = 4096, seed = 10)
    withTempDir { dir =>
      val files = Seq("a", "b").map { name =>
        val file = new File(dir, name)
        writeAll(factory(), file, entries)
        java.nio.file.Files.readAllBytes(file.toPath)
      }
      assert(java.util.Arrays.equals(files(0), files(1)))
    }
  }

  test("long keys in a large section (windows of fewer slots): every key found") {
    val n = HashLookupStoreWriter.ParallelMinKeys + 500
    roundTrip(randomEntries(seed = 24, n = n, minKey = 300, maxKey = 300, minValue = 0, maxValue = 2), pageSize = 4096, seed = 11)
  }

  test("a duplicate key in a large section is rejected") {
    withTempDir { dir =>
      val file = new File(dir, "dup.hash")
      val w = factory().createWriter(file, HashLookupStoreWriter.ParallelMinKeys * 2L)
      (0 until HashLookupStoreWriter.ParallelMinKeys * 2).foreach { i =>
        w.put(java.nio.ByteBuffer.allocate(8).putLong(i * 7919L).array(), Array[Byte](1))
      }
      w.put(java.nio.ByteBuffer.allocate(8).putLong(7919L * 5).array(), Array[Byte](2))
      val e = intercept[BadInputException](w.finish())
      assert(e.getMessage == s"Duplicate key 0x0000000000009aab in hash lookup file ${file.getPath}")
    }
  }
}
