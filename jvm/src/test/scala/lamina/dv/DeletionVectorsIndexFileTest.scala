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

  test("rolled: a file closes once larger than the target (version byte counted), a vector never split") {
    import DeletionVectorsIndexFile.rolled
    assert(rolled(Seq.empty, 10) === Seq.empty)
    // 1 + 10 + 10 = 21 is not past 21; the third entry takes the file to 31 and closes it
    assert(rolled(Seq(10, 10, 10, 10), 21) === Seq(0 until 3, 3 until 4))
    assert(rolled(Seq(10, 10, 10, 10), 20) === Seq(0 until 2, 2 until 4))
    // a vector larger than the target closes the file it lands in, or is alone when it comes first
    assert(rolled(Seq(5, 100, 5), 50) === Seq(0 until 2, 2 until 3))
    assert(rolled(Seq(100, 5, 5), 50) === Seq(0 until 1, 1 until 3))
    assert(rolled(Seq(7, 7, 7), 0) === Seq(0 until 1, 1 until 2, 2 until 3))
    assert(rolled(Seq(7, 7, 7), 1) === Seq(0 until 1, 1 until 2, 2 until 3))
    assert(rolled(Seq(7, 7, 7), Long.MaxValue) === Seq(0 until 3))
  }

  test("encodeRolling: every vector once, in order, each file closed only once past the target, each read back") {
    val random = new scala.util.Random(42)
    val vectors: Seq[(String, DeletionVector)] = (0 until 40).map { i =>
      val positions = Seq.fill(1 + random.nextInt(if (i == 17) 5000 else 30))(random.nextInt(100000).toLong)
      f"data-$i%02d.parquet" -> (if (i % 3 == 0) Bitmap64DeletionVector(positions) else BitmapDeletionVector(positions))
    }
    val sizes = vectors.map(_._2.encode.length)
    val target = 300L
    assert(sizes(17) > target) // one vector larger than the target
    val files = DeletionVectorsIndexFile.encodeRolling(vectors, target)
    assert(files.size > 2)
    assert(files.flatMap(_._2.map(_.dataFileName)) === vectors.map(_._1))
    files.zipWithIndex.foreach { case ((bytes, ranges), n) =>
      assert(bytes.length === DeletionVectorsIndexFile.HeaderBytes + ranges.map(r =>
        sizes(vectors.indexWhere(_._1 == r.dataFileName))).sum)
      assert(ranges.last.offset <= target, s"file $n was not closed once past the target") // its size without its last entry
      if (n < files.size - 1) assert(bytes.length > target, s"file $n was closed before passing the target")
      val expected = DeletionVectorsIndexFile.encode(ranges.map(r => vectors.find(_._1 == r.dataFileName).get))
      assert((bytes.toSeq, ranges) === (expected._1.toSeq, expected._2))
      val path = written(bytes)
      ranges.foreach { r =>
        assert(DeletionVectorsIndexFile.read(fileIO, DeletionFile(path, bytes.length, r)) ===
          vectors.find(_._1 == r.dataFileName).get._2)
      }
    }
    val big = files.find(_._2.exists(_.dataFileName == "data-17.parquet")).get._2
    assert(big.last.dataFileName === "data-17.parquet")
    val one = DeletionVectorsIndexFile.encodeRolling(vectors, Long.MaxValue).map { case (b, r) => (b.toSeq, r) }
    val (allBytes, allRanges) = DeletionVectorsIndexFile.encode(vectors)
    assert(one === Seq((allBytes.toSeq, allRanges)))
    assert(DeletionVectorsIndexFile.encodeRolling(Seq.empty, target) === Seq.empty)
  }
}
