package lamina.dv

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException

class Bitmap64DeletionVectorTest extends AnyFunSuite {
  import PaimonDvFixtures._

  test("encodes Paimon's bytes: big-endian length and CRC, little-endian magic, count, keys and bitmaps") {
    val expected = hex(
      "00000030" + // length of magic + bitmap64: 48
        "d1d33964" + // magic 1681511377, little-endian
        "0100000000000000" + // one 32-bit bitmap
        "00000000" + // its key: 0
        "3a300000" + "01000000" + "0000" + "0700" + "10000000" + // roaring header: 1 container of 8
        "0000" + "0400" + "0800" + "0c00" + "1000" + "1400" + "1800" + "1c00" +
        "da4709e5") // CRC32 of magic + bitmap64
    val dv = Bitmap64DeletionVector(Bitmap64Positions)
    assert(dv.encode.toSeq === expected.toSeq)
    assert(dv.encode.toSeq === bytes("bitmap64.index").drop(1).toSeq)
    assert(dv.recordedLength === 56) // Paimon records the 64-bit entry with its length prefix and CRC
  }

  test("decodes what it encodes, keys with empty bitmaps between them included") {
    val random = new Random(64)
    val positions = (Seq.fill(300)(random.nextInt(1 << 16).toLong) ++ Seq.fill(50)((3L << 32) + random.nextInt(1000))).distinct
    val dv = Bitmap64DeletionVector(positions)
    val back = DeletionVector.decode(dv.encode, "f", 0, dv.recordedLength)
    assert(back === dv)
    assert(back.cardinality === positions.size)
    assert(back.lastPosition === positions.max)
    positions.foreach(p => assert(back.isDeleted(p)))
    assert(!back.isDeleted((1L << 32) + positions.head))
    assert(Bitmap64DeletionVector(Nil).lastPosition === -1L)
  }

  test("a damaged entry fails naming the file") {
    val good = Bitmap64DeletionVector(Bitmap64Positions).encode
    good.indices.foreach { i =>
      val bad = good.clone()
      bad(i) = (bad(i) ^ 0x01).toByte
      assert(intercept[CorruptFileException](DeletionVector.decode(bad, "/t/index/y", 1, 56)).path === "/t/index/y")
    }
    (0 until good.length).foreach { n =>
      intercept[CorruptFileException](DeletionVector.decode(good.take(n), "/t/index/y", 1, 56))
    }
  }
}
