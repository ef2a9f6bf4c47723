package lamina.mergetree.function

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}
import java.nio.ByteBuffer

import org.apache.datasketches.hll.{HllSketch, TgtHllType}
import org.apache.datasketches.memory.Memory
import org.apache.datasketches.theta.{Sketch, UpdateSketch}
import org.roaringbitmap.RoaringBitmap
import org.roaringbitmap.longlong.Roaring64Bitmap
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.types._

class UnionAggregatorsTest extends AnyFunSuite {
  private val Bytes = VarBinaryType(VarBinaryType.MaxLength)
  private def same(a: Any, b: Any): Boolean = a.asInstanceOf[AnyRef] eq b.asInstanceOf[AnyRef]
  private def agg(fn: String, t: DataType = Bytes): FieldAggregator =
    FieldAggregator.create(fn, DataField(1, "f", t), Map.empty, "db.t")

  private def rbm32(vs: Int*): Array[Byte] = {
    val b = RoaringBitmap.bitmapOf(vs: _*)
    b.runOptimize()
    val out = ByteBuffer.allocate(b.serializedSizeInBytes())
    b.serialize(out)
    out.array()
  }
  private def rbm32Values(bytes: Any): Seq[Int] = {
    val b = new RoaringBitmap
    b.deserialize(ByteBuffer.wrap(bytes.asInstanceOf[Array[Byte]]))
    b.toArray.toSeq
  }
  private def rbm64(vs: Long*): Array[Byte] = {
    val b = Roaring64Bitmap.bitmapOf(vs: _*)
    b.runOptimize()
    val out = new ByteArrayOutputStream
    b.serialize(new DataOutputStream(out))
    out.toByteArray
  }
  private def rbm64Values(bytes: Any): Seq[Long] = {
    val b = new Roaring64Bitmap
    b.deserialize(new DataInputStream(new ByteArrayInputStream(bytes.asInstanceOf[Array[Byte]])))
    b.toArray.toSeq
  }
  private def hll(vs: Range): Array[Byte] = {
    val s = new HllSketch(12, TgtHllType.HLL_8)
    vs.foreach(v => s.update(v.toLong))
    s.toCompactByteArray
  }
  private def theta(vs: Range): Array[Byte] = {
    val s = UpdateSketch.builder().build()
    vs.foreach(v => s.update(v.toLong))
    s.compact().toByteArray
  }

  test("rbm32 unites bitmaps and writes RoaringBitmap's run-optimized serialization") {
    val a = agg("rbm32")
    val out = a.agg(rbm32(1, 5), rbm32(5, 100000))
    assert(rbm32Values(out) == Seq(1, 5, 100000))
    assert(out.asInstanceOf[Array[Byte]].sameElements(rbm32(1, 5, 100000)))
    val first = rbm32(3)
    assert(same(a.agg(null, first), first))
    assert(same(a.agg(first, null), first))
    assert(a.agg(null, null) == null)
  }

  test("rbm64 unites 64-bit bitmaps in Roaring64Bitmap's serialization") {
    val a = agg("rbm64")
    val big = 1L << 40
    val out = a.agg(rbm64(1L, big), rbm64(big, big + 7))
    assert(rbm64Values(out) == Seq(1L, big, big + 7))
    assert(out.asInstanceOf[Array[Byte]].sameElements(rbm64(1L, big, big + 7)))
    assert(a.agg(null, rbm64(2L)).asInstanceOf[Array[Byte]].sameElements(rbm64(2L)))
  }

  test("hll_sketch unites sketches into a compact HLL_4 sketch") {
    val out = agg("hll_sketch").agg(hll(0 until 10000), hll(5000 until 15000)).asInstanceOf[Array[Byte]]
    val s = HllSketch.heapify(out)
    assert(s.getTgtHllType == TgtHllType.HLL_4)
    assert(math.abs(s.getEstimate - 15000) < 15000 * 0.05, s.getEstimate)
    assert(HllSketch.heapify(agg("hll_sketch").agg(out, out).asInstanceOf[Array[Byte]]).getEstimate == s.getEstimate)
  }

  test("theta_sketch unites sketches into a compact sketch") {
    val out = agg("theta_sketch").agg(theta(0 until 1000), theta(500 until 1500)).asInstanceOf[Array[Byte]]
    assert(Sketch.wrap(Memory.wrap(out)).getEstimate == 1500.0) // exact below 4096 entries
    val big = agg("theta_sketch").agg(theta(0 until 50000), theta(25000 until 75000)).asInstanceOf[Array[Byte]]
    assert(math.abs(Sketch.wrap(Memory.wrap(big)).getEstimate - 75000) < 75000 * 0.05)
  }

  test("the unions cannot retract, take BYTES only, and name the function on bytes they cannot read") {
    Seq("rbm32", "rbm64", "hll_sketch", "theta_sketch").foreach { fn =>
      assert(!agg(fn).supportsRetract, fn)
      assert(intercept[UnsupportedOperationException](agg(fn).retract(rbm32(1), rbm32(1))).getMessage.contains(fn))
      assert(intercept[BadInputException](agg(fn, IntType())).getMessage ==
        s"Table db.t: aggregate function '$fn' of column 'f' (option 'fields.f.aggregate-function') does not support " +
        "type INT; it needs BYTES (VARBINARY)")
      assert(intercept[BadInputException](agg(fn, BinaryType(8))).getMessage.contains("does not support type BINARY(8)"))
      // DataSketches reads a theta sketch of fewer than 8 bytes as empty, as Paimon's readers do
      val garbage = Array.fill[Byte](if (fn == "theta_sketch") 16 else 3)(0x7f)
      val bad = withClue(fn)(intercept[BadInputException](agg(fn).agg(garbage, garbage)))
      assert(bad.getMessage.startsWith(s"aggregate function '$fn' cannot read a value that is not a serialized"), fn)
    }
  }
}
