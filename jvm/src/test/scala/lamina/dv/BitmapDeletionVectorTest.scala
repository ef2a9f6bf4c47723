package lamina.dv

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException

class BitmapDeletionVectorTest extends AnyFunSuite {
  import PaimonDvFixtures._

  test("encodes Paimon's bytes: length, magic and CRC big-endian around a little-endian roaring bitmap") {
    val expected = hex(
      "0000001a" + // length of magic + bitmap: 26
        "5e43f2d0" + // magic 1581511376
        "3a300000" + "01000000" + // roaring cookie 12346 (no run containers), 1 container
        "0000" + "0200" + // key 0, cardinality - 1
        "10000000" + // offset of the container: 16
        "0200" + "0600" + "0800" + // positions 2, 6, 8
        "f7766d3a") // CRC32 of magic + bitmap
    val dv = BitmapDeletionVector(Bitmap32First)
    assert(dv.encode.toSeq === expected.toSeq)
    assert(dv.recordedLength === 26)
    assert(dv.encode.toSeq === bytes("bitmap32.index").slice(1, 35).toSeq)
  }

  test("run containers are encoded as Paimon writes them (run-optimized)") {
    val dv = BitmapDeletionVector(Bitmap32Second)
    assert(dv.encode.toSeq === bytes("bitmap32.index").slice(35, 78).toSeq)
    assert(dv.recordedLength === 35)
  }

  test("decodes what it encodes, and knows each position") {
    val random = new Random(23)
    for (n <- Seq(0, 1, 100, 5000)) {
      val positions = Seq.fill(n)(random.nextInt(1 << 20).toLong).distinct
      val dv = BitmapDeletionVector(positions)
      val back = DeletionVector.decode(dv.encode, "f", 0, dv.recordedLength)
      assert(back === dv)
      assert(back.cardinality === positions.size)
      assert(back.lastPosition === (if (positions.isEmpty) -1L else positions.max))
      val set = positions.toSet
      (0L until 2000L).foreach(p => assert(back.isDeleted(p) === set(p)))
      assert(!back.isDeleted(-1L) && !back.isDeleted(1L << 40))
    }
  }

  test("positions beyond 32 bits are refused") {
    intercept[IllegalArgumentException](BitmapDeletionVector(Seq(1L << 31)))
  }

  test("a damaged entry fails naming the file; the recorded length must match") {
    val good = BitmapDeletionVector(Bitmap32Second).encode
    good.indices.foreach { i =>
      val bad = good.clone()
      bad(i) = (bad(i) ^ 0x10).toByte
      val e = intercept[CorruptFileException](DeletionVector.decode(bad, "/t/index/x", 100, 35))
      assert(e.path === "/t/index/x")
      assert(e.offset >= 100)
    }
    intercept[CorruptFileException](DeletionVector.decode(good, "/t/index/x", 0, 34))
    (0 until good.length).foreach { n =>
      intercept[CorruptFileException](DeletionVector.decode(good.take(n), "/t/index/x", 0, 35))
    }
  }

  test("skipDeleted drops the rows at deleted positions") {
    val dv = BitmapDeletionVector(Bitmap32First)
    assert(dv.skipDeleted(Iterator.range(0, 10)).toSeq === Seq(0, 1, 3, 4, 5, 7, 9))
  }
}
