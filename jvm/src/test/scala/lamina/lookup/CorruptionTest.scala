package lamina.lookup

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.lookup.sort.SortLookupStoreReader

/** Damaged files must fail with [[CorruptFileException]] naming the file, or answer exactly as the
 *  intact file would: never a wrong value, never another exception. */
class CorruptionTest extends AnyFunSuite with LookupTestSupport {

  private val misses = Seq("key-040", "key-0", "", "zzz", "key-019x").map(_.getBytes("US-ASCII"))

  /** Outcome of reading every key, some misses, and (sort files) a full scan: None when all answers
   *  were right, Some(exception) when the damage was detected. Anything else fails the test. */
  private def readAll(g: GoldenFiles.Golden, file: File, context: String): Option[CorruptFileException] = {
    val factory = LookupStoreFactory.create(g.options, newCache(bytes = 1 << 20))
    try {
      val r = factory.createReader(file)
      try {
        GoldenFiles.entries.foreach { case (k, v) =>
          assert(hex(r.lookup(k)) == hex(v), s"$context: wrong value for ${new String(k)}")
        }
        misses.foreach(k => assert(r.lookup(k) == null, s"$context: phantom value for '${new String(k)}'"))
        r match {
          case s: SortLookupStoreReader =>
            assert(s.iterator().map(e => hex(e._1) + hex(e._2)).toSeq ==
                GoldenFiles.entries.map(e => hex(e._1) + hex(e._2)), s"$context: wrong scan")
          case _ =>
        }
        None
      } finally r.close()
    } catch {
      case e: CorruptFileException =>
        assert(e.path == file.getAbsolutePath, context)
        assert(e.getMessage.startsWith(s"Corrupt file ${file.getAbsolutePath} at offset ${e.offset}: expected "), context)
        Some(e)
    }
  }

  for (g <- GoldenFiles.all) {
    test(s"every flipped byte of ${g.name} is detected or harmless") {
      val original = Files.readAllBytes(GoldenFiles.resource(g.name).toPath)
      withTempDir { dir =>
        val file = new File(dir, g.name)
        var detected = 0
        var harmless = 0
        for (i <- original.indices; mask <- Seq(0xff, 0x01, 0x80)) {
          val damaged = original.clone()
          damaged(i) = (damaged(i) ^ mask).toByte
          Files.write(file.toPath, damaged)
          readAll(g, file, f"byte $i xor 0x$mask%02x") match {
            case Some(_) => detected += 1
            case None => harmless += 1
          }
        }
        assert(detected + harmless == original.length * 3)
        // Both kinds are covered by checksums end to end; a hash file's page is checked when it is
        // loaded, and in this one a page of four empty slots (60 bytes) is one that no lookup reaches.
        if (g.options.localFileType == LocalFileType.Sort) assert(harmless == 0)
        else assert(harmless == 3 * 60)
      }
    }

    test(s"every truncation of ${g.name} is detected") {
      val original = Files.readAllBytes(GoldenFiles.resource(g.name).toPath)
      withTempDir { dir =>
        val file = new File(dir, g.name)
        for (len <- 0 until original.length) {
          Files.write(file.toPath, java.util.Arrays.copyOf(original, len))
          assert(readAll(g, file, s"truncated to $len bytes").isDefined, s"truncation to $len bytes went unnoticed")
        }
      }
    }
  }

  test("exact messages for a damaged sort file") {
    val g = GoldenFiles.all.head
    val original = Files.readAllBytes(GoldenFiles.resource(g.name).toPath)
    withTempDir { dir =>
      val file = new File(dir, g.name)
      val path = file.getAbsolutePath
      val damagedMagic = original.clone()
      damagedMagic(original.length - 1) = 0
      Files.write(file.toPath, damagedMagic)
      val m = readAll(g, file, "magic").get
      assert(m.getMessage == s"Corrupt file $path at offset ${original.length - 8}: expected magic 0x54524f53414e4d4c, " +
        "found 0x00524f53414e4d4c (not a sort lookup file)")

      Files.write(file.toPath, Array[Byte](1, 2, 3))
      assert(readAll(g, file, "short").get.getMessage ==
        s"Corrupt file $path at offset 0: expected at least 56 bytes (a footer), found 3 bytes (file too short)")

      val damagedBlock = original.clone()
      damagedBlock(0) = (damagedBlock(0) ^ 1).toByte
      Files.write(file.toPath, damagedBlock)
      val b = readAll(g, file, "block").get
      assert(b.offset == 0)
      assert(b.expected.startsWith("CRC32C 0x") && b.actual.startsWith("CRC32C 0x") && b.expected != b.actual)
    }
  }

  test("exact messages for a damaged hash file") {
    val g = GoldenFiles.all.find(_.options.localFileType == LocalFileType.Hash).get
    val original = Files.readAllBytes(GoldenFiles.resource(g.name).toPath)
    withTempDir { dir =>
      val file = new File(dir, g.name)
      val path = file.getAbsolutePath
      // byte 70 lies in the data section's second page of 64 bytes, which starts at offset 64
      val damaged = original.clone()
      damaged(70) = (damaged(70) ^ 1).toByte
      Files.write(file.toPath, damaged)
      val e = readAll(g, file, "data page").get
      assert(e.offset == 64)
      assert(e.getMessage.startsWith(s"Corrupt file $path at offset 64: expected CRC32C 0x") && e.getMessage.endsWith(
        "(hash data page)"))

      val damagedVersion = original.clone()
      damagedVersion(8) = 1
      Files.write(file.toPath, damagedVersion)
      assert(readAll(g, file, "version").get.getMessage ==
        s"Corrupt file $path at offset 8: expected format version 2, found format version 1 (header)")
    }
  }
}
