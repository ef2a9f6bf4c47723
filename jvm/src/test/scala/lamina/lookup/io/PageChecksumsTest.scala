package lamina.lookup.io

import java.io.File
import java.nio.file.Files

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class PageChecksumsTest extends AnyFunSuite {

  private def expected(bytes: Array[Byte], pageSize: Int): Seq[Int] =
    bytes.grouped(pageSize).map(p => Checksums.crc32c(p, 0, p.length)).toSeq

  test("pages of a stream fed in pieces of any size, the last one short") {
    val rnd = new Random(5)
    for (pageSize <- Seq(1, 7, 64, 4096); total <- Seq(0, 1, 63, 64, 65, 10000)) {
      val bytes = new Array[Byte](total)
      rnd.nextBytes(bytes)
      val sums = new PageChecksums(pageSize)
      var at = 0
      while (at < total) {
        val n = math.min(total - at, rnd.nextInt(3 * pageSize + 2))
        sums.update(bytes, at, n)
        at += n
      }
      assert(sums.finish().toSeq == expected(bytes, pageSize), s"page size $pageSize, $total bytes")
    }
  }

  test("a file output feeds its checksums until they end, small writes and large ones alike") {
    val dir = Files.createTempDirectory("lamina-page-checksums").toFile
    try {
      val file = new File(dir, "out")
      val out = new LocalFileOutput(file, bufferSize = 16, checksums = new PageChecksums(10))
      val rnd = new Random(6)
      val written = Seq(3, 40, 1, 17, 0, 9).map { n =>
        val b = new Array[Byte](n); rnd.nextBytes(b); out.write(b); b
      }
      val sums = out.endChecksums()
      out.write(Array[Byte](1, 2, 3))
      out.close()
      val all = written.reduce(_ ++ _)
      assert(sums.toSeq == expected(all, 10))
      assert(Files.readAllBytes(file.toPath).toSeq == (all ++ Array[Byte](1, 2, 3)).toSeq)
    } finally { dir.listFiles().foreach(_.delete()); dir.delete() }
  }
}
