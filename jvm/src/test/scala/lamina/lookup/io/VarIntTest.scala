package lamina.lookup.io

import org.scalatest.funsuite.AnyFunSuite

class VarIntTest extends AnyFunSuite {

  test("round trip at every length boundary") {
    val values = Seq(0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, Int.MaxValue)
    values.foreach { v =>
      val b = new Array[Byte](VarInt.MaxBytes + 2)
      val end = VarInt.write(b, 1, v)
      assert(end - 1 == VarInt.size(v), s"size of $v")
      val packed = VarInt.read(b, 1, end)
      assert(VarInt.value(packed) == v && VarInt.length(packed) == end - 1, s"value $v")
    }
  }

  test("known encodings") {
    val b = new Array[Byte](5)
    assert(VarInt.write(b, 0, 300) == 2)
    assert(b.take(2).toSeq == Seq(0xac.toByte, 0x02.toByte))
  }

  test("truncated, overlong and negative encodings are rejected") {
    assert(VarInt.read(Array(0x80.toByte), 0, 1) == -1L)
    assert(VarInt.read(Array(0x80.toByte, 0x80.toByte, 0x80.toByte, 0x80.toByte, 0x80.toByte, 0x01), 0, 6) == -1L)
    // 2^31 does not fit a non-negative int.
    assert(VarInt.read(Array(0x80.toByte, 0x80.toByte, 0x80.toByte, 0x80.toByte, 0x08), 0, 5) == -1L)
    assert(VarInt.read(Array[Byte](5), 0, 0) == -1L)
  }

  test("key hash is stable: it is part of the file formats") {
    // Expected values computed independently from the algorithm in docs/format/lookup-store.md.
    assert(KeyHash.hash64(Array.emptyByteArray) == -723835620279304836L)
    assert(KeyHash.hash64("key-000".getBytes("US-ASCII")) == 4839385393466932642L)
    assert(KeyHash.hash64("0123456789abcdef".getBytes("US-ASCII")) == 8408440404195839150L)
    assert(KeyHash.hash64(Array[Byte](1, 2, 3, 4, 5, 6, 7, 8, 9), 1, 8) == KeyHash.hash64(Array[Byte](2, 3, 4, 5, 6, 7, 8, 9)))
  }
}
