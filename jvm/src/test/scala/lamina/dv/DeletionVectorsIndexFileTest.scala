package lamina.dv

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.io.FileIO

class DeletionVectorsIndexFileTest extends AnyFunSuite {
  import PaimonDvFixtures._

  private val fileIO = FileIO(new Configuration())

  private def written(bytes: Array[Byte]): String = {
    val f = Files.createTempFile("index-", "")
    Files.write(f, bytes)
    f.toFile.deleteOnExit()
    f.toString
  }

  test("encodes the index file Paimon wrote: a version byte, then the entries with their ranges") {
    val (bytes, ranges) = DeletionVectorsIndexFile.encode(Seq(
        Bitmap32Ranges(0).dataFileName -> BitmapDeletionVector(Bitmap32First),
        Bitmap32Ranges(1).dataFileName -> BitmapDeletionVector(Bitmap32Second)))
    assert(bytes.toSeq === PaimonDvFixtures.bytes("bitmap32.index").toSeq)
    assert(ranges === Bitmap32Ranges)
    val (bytes64, ranges64) =
      DeletionVectorsIndexFile.encode(Seq(Bitmap64Range.dataFileName -> Bitmap64DeletionVector(Bitmap64Positions)))
    assert(bytes64.toSeq === PaimonDvFixtures.bytes("bitmap64.index").toSeq)
    assert(ranges64 === Seq(Bitmap64Range))
  }

  test("reads each vector of Paimon's files by its range") {
    val path32 = file("bitmap32.index").getPath
    val read32 = Bitmap32Ranges.map(r => DeletionVectorsIndexFile.read(fileIO, DeletionFile(path32, 78, r)))
    assert(read32 === Seq(BitmapDeletionVector(Bitmap32First), BitmapDeletionVector(Bitmap32Second)))
    val read64 = DeletionVectorsIndexFile.read(fileIO, DeletionFile(file("bitmap64.index").getPath, 57, Bitmap64Range))
    assert(read64 === Bitmap64DeletionVector(Bitmap64Positions))
  }

  /** Every read of a vector whose bytes (or the version byte) were damaged fails naming the file. */
  private def assertEveryDamageFails(good: Array[Byte], ranges: Seq[DeletionVectorRange], damage: Array[Byte] => Array[Byte],
      touches: DeletionVectorRange => Boolean): Unit = {
    val path = written(damage(good.clone()))
    ranges.foreach { r =>
      if (touches(r)) {
        val e = intercept[CorruptFileException](DeletionVectorsIndexFile.read(fileIO, DeletionFile(path, good.length, r)))
        assert(e.path === path)
        assert(e.getMessage.startsWith(s"Corrupt file $path"))
      }
    }
  }

  private def entryEnd(r: DeletionVectorRange, good: Array[Byte]): Int =
    r.offset + 8 + java.nio.ByteBuffer.wrap(good).getInt(r.offset)

  test("a flipped byte anywhere fails the read of its vector, naming the file") {
    for ((name, ranges) <- Seq("bitmap32.index" -> Bitmap32Ranges, "bitmap64.index" -> Seq(Bitmap64Range))) {
      val good = bytes(name)
      good.indices.foreach { i =>
        assertEveryDamageFails(good, ranges, b => { b(i) = (b(i) ^ 0x40).toByte; b },
          r => i == 0 || (i >= r.offset && i < entryEnd(r, good)))
      }
    }
  }

  test("a file cut short fails the read of every vector it cuts, naming the file") {
    for ((name, ranges) <- Seq("bitmap32.index" -> Bitmap32Ranges, "bitmap64.index" -> Seq(Bitmap64Range))) {
      val good = bytes(name)
      (0 until good.length).foreach { n =>
        assertEveryDamageFails(good, ranges, _.take(n), r => n < entryEnd(r, good))
      }
    }
  }

  test("a range outside the file, a wrong length or a wrong cardinality fails naming the file") {
    val path = file("bitmap32.index").getPath
    val r = Bitmap32Ranges(0)
    for (bad <- Seq(r.copy(offset = 0), r.copy(offset = 200), r.copy(length = 27), r.copy(length = -1),
        r.copy(cardinality = Some(4L)), r.copy(offset = 2))) {
      assert(intercept[CorruptFileException](DeletionVectorsIndexFile.read(fileIO, DeletionFile(path, 78, bad))).path === path)
    }
    val missing = intercept[CorruptFileException](DeletionVectorsIndexFile.read(fileIO, DeletionFile(path + "-gone", 78, r)))
    assert(missing.path === path + "-gone")
  }
}
