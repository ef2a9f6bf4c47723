package lamina.lookup.io

import java.io.File
import java.nio.ByteBuffer
import java.nio.file.Files

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.LookupTestSupport

class LocalFileOutputTest extends AnyFunSuite with LookupTestSupport {

  test("a reserved span is filled from two threads at once; writing goes on after it") {
    withTempDir { dir =>
      val file = new File(dir, "out")
      val rnd = new Random(3)
      val before = Array.fill(1000)(rnd.nextInt().toByte)
      val middle = Array.fill(3 << 20)(rnd.nextInt().toByte)
      val after = Array.fill(77)(rnd.nextInt().toByte)
      val out = new LocalFileOutput(file, bufferSize = 4096, checksums = new PageChecksums(512))
      out.write(before)
      assert(out.endChecksums().length == 2)
      val at = out.reserve(middle.length)
      assert(at == before.length && out.position == before.length + middle.length)
      out.write(after)
      val half = middle.length / 2
      val other = new Thread(() => out.writeAt(at + half, ByteBuffer.wrap(middle, half, middle.length - half)))
      other.start()
      out.writeAt(at, ByteBuffer.wrap(middle, 0, half))
      other.join()
      assert(out.checksumAt(at + 10, 5000) == Checksums.crc32c(middle, 10, 5000))
      out.close()
      assert(Files.readAllBytes(file.toPath).toSeq == (before ++ middle ++ after).toSeq)
    }
  }

  test("a span is reserved only once the checksums have ended") {
    withTempDir { dir =>
      val out = new LocalFileOutput(new File(dir, "out"), checksums = new PageChecksums(512))
      try intercept[IllegalArgumentException](out.reserve(10))
      finally out.close()
    }
  }
}
