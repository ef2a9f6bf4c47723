package lamina.lookup.io

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.lookup.LookupTestSupport

class LocalFileInputTest extends AnyFunSuite with LookupTestSupport {

  test("reads exact ranges, into a longer array too; a range past the end is corruption naming the file") {
    withTempDir { dir =>
      val file = new File(dir, "bytes")
      val content = Array.tabulate[Byte](5000)(i => (i % 241).toByte)
      Files.write(file.toPath, content)
      val input = new LocalFileInput(file)
      try {
        assert(input.length == 5000)
        assert(input.read(100, 3000).toSeq == content.slice(100, 3100).toSeq)
        val into = Array.fill[Byte](64)(7)
        assert(input.readInto(10, 20, into) eq into)
        assert(into.take(20).toSeq == content.slice(10, 30).toSeq && into.drop(20).forall(_ == 7), "only [0, len) written")
        val e = intercept[CorruptFileException](input.read(4990, 20))
        assert(e.getMessage.contains(file.getName))
        assert(input.read(0, 5000).toSeq == content.toSeq)
        // an offset near the largest long: offset + len overflows, and must not pass the range check
        intercept[CorruptFileException](input.read(Long.MaxValue - 4, 20))
      } finally input.close()
      val big = new File(dir, "big")
      val bigContent = Array.tabulate[Byte](LocalFileInput.MaxReadBytes * 2 + 100)(i => (i % 251).toByte)
      Files.write(big.toPath, bigContent)
      val bigInput = new LocalFileInput(big)
      try assert(java.util.Arrays.equals(bigInput.read(3, bigContent.length - 3), bigContent.drop(3)), "read in pieces")
      finally bigInput.close()
    }
  }
}
