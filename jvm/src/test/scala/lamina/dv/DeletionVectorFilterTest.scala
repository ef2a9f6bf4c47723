package lamina.dv

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.io.FileIO

class DeletionVectorFilterTest extends AnyFunSuite {
  private val filter = DeletionVectorFilter(FileIO(new Configuration()))

  private def indexFile(dvs: (String, DeletionVector)*): Map[String, DeletionFile] = {
    val (bytes, ranges) = DeletionVectorsIndexFile.encode(dvs)
    val f = Files.createTempFile("index-", "")
    Files.write(f, bytes)
    f.toFile.deleteOnExit()
    ranges.map(r => r.dataFileName -> DeletionFile(f.toString, bytes.length, r)).toMap
  }

  test("each file's rows lose the positions of its own vector; a file without one keeps all its rows") {
    val files = indexFile("a" -> BitmapDeletionVector(Seq(0L, 2L)), "b" -> Bitmap64DeletionVector(Seq(1L)))
    assert(filter(files, "a", 4, Iterator("a0", "a1", "a2", "a3")).toSeq === Seq("a1", "a3"))
    assert(filter(files, "b", 3, Iterator("b0", "b1", "b2")).toSeq === Seq("b0", "b2"))
    assert(filter(files, "c", 2, Iterator("c0", "c1")).toSeq === Seq("c0", "c1"))
  }

  test("a vector that deletes a position past the file's rows is corruption of the index file") {
    val files = indexFile("a" -> BitmapDeletionVector(Seq(5L)))
    val e = intercept[CorruptFileException](filter(files, "a", 5, Iterator.empty[String]))
    assert(e.path === files("a").indexFilePath)
    assert(e.getMessage.contains("deleted positions below the 5 rows of a"))
  }
}
