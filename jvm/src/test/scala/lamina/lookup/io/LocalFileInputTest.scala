package lamina.lookup.io

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.lookup.LookupTestSupport

class LocalFileInputTest extends AnyFunSuite with LookupTestSupport {

  test("shared reads reuse one buffer of the thread; large or out-of-range reads do not") {
    withTempDir { dir =>
      val file = new File(dir, "bytes")
      val content = Array.tabulate[Byte](5000)(i => (i % 241).toByte)
      Files.write(file.toPath, content)
      val input = new LocalFileInput(file)
      try {
        val a = input.readShared(100, 3000)
        assert(a.take(3000).toSeq == content.slice(100, 3100).toSeq)
        val b = input.readShared(10, 20)
        assert(b eq a, "the thread's buffer again")
        assert(b.take(20).toSeq == content.slice(10, 30).toSeq)
        @volatile var otherBuffer: Array[Byte] = null
        val other = new Thread(() => otherBuffer = input.readShared(0, 10))
        other.start(); other.join()
        assert(otherBuffer != null && !(otherBuffer eq a), "another thread has a buffer of its own")
        val e = intercept[CorruptFileException](input.readShared(4990, 20))
        assert(e.getMessage.contains(file.getName))
        assert(input.read(0, 5000).toSeq == content.toSeq)
      } finally input.close()
      val big = new File(dir, "big")
      Files.write(big.toPath, new Array[Byte](LocalFileInput.MaxSharedBytes + 1))
      val bigInput = new LocalFileInput(big)
      try {
        val x = bigInput.readShared(0, LocalFileInput.MaxSharedBytes + 1)
        assert(!(bigInput.readShared(0, LocalFileInput.MaxSharedBytes + 1) eq x), "an array of its own")
      } finally bigInput.close()
    }
  }
}
