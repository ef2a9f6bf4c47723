package lamina.mergetree.function

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}
import java.nio.ByteBuffer

import org.apache.datasketches.hll.{HllSketch, TgtHllType, Union => HllUnion}
import org.apache.datasketches.memory.Memory
import org.apache.datasketches.theta.SetOperation
import org.roaringbitmap.RoaringBitmap
import org.roaringbitmap.longlong.Roaring64Bitmap

import lamina.errors.BadInputException

/** The union of two serialized sets or sketches in a BYTES column: a NULL side gives the other side
 *  unchanged (so a first value is kept byte for byte); otherwise both are decoded, united, and the
 *  union encoded again, in the layout Paimon's aggregator of the same name writes. No retraction. */
private[mergetree] abstract class BinaryUnionAgg(what: String) extends FieldAggregator {
  protected def union(acc: Array[Byte], input: Array[Byte]): Array[Byte]

  final def agg(acc: Any, input: Any): Any =
    if (acc == null) input
    else if (input == null) acc
    else
      try union(acc.asInstanceOf[Array[Byte]], input.asInstanceOf[Array[Byte]])
      catch {
        case e: Exception => throw new BadInputException(s"aggregate function '$name' cannot read a value that is not $what", e)
      }
}

/** rbm32: `org.roaringbitmap.RoaringBitmap`'s portable serialization, run-optimized before writing. */
private[mergetree] final class RoaringBitmap32Agg extends BinaryUnionAgg("a serialized 32-bit roaring bitmap") {
  val name = AggregateFunction.RoaringBitmap32.name

  private def read(bytes: Array[Byte]): RoaringBitmap = {
    val b = new RoaringBitmap
    b.deserialize(ByteBuffer.wrap(bytes))
    b
  }

  protected def union(acc: Array[Byte], input: Array[Byte]): Array[Byte] = {
    val b = read(acc)
    b.or(read(input))
    b.runOptimize()
    val out = ByteBuffer.allocate(b.serializedSizeInBytes())
    b.serialize(out)
    out.array()
  }
}

/** rbm64: `org.roaringbitmap.longlong.Roaring64Bitmap`'s own serialization (not the portable 64-bit
 *  layout), run-optimized before writing. */
private[mergetree] final class RoaringBitmap64Agg extends BinaryUnionAgg("a serialized 64-bit roaring bitmap") {
  val name = AggregateFunction.RoaringBitmap64.name

  private def read(bytes: Array[Byte]): Roaring64Bitmap = {
    val b = new Roaring64Bitmap
    b.deserialize(new DataInputStream(new ByteArrayInputStream(bytes)))
    b
  }

  protected def union(acc: Array[Byte], input: Array[Byte]): Array[Byte] = {
    val b = read(acc)
    b.or(read(input))
    b.runOptimize()
    val bytes = new ByteArrayOutputStream(b.serializedSizeInBytes().toInt)
    val out = new DataOutputStream(bytes)
    b.serialize(out)
    out.flush()
    bytes.toByteArray
  }
}

/** hll_sketch: Apache DataSketches HLL sketches; the union is written as a compact HLL_4 sketch. */
private[mergetree] final class HllSketchAgg extends BinaryUnionAgg("a serialized DataSketches HLL sketch") {
  val name = AggregateFunction.HllSketch.name

  protected def union(acc: Array[Byte], input: Array[Byte]): Array[Byte] = {
    val u = HllUnion.heapify(input)
    u.update(HllSketch.heapify(acc))
    u.getResult(TgtHllType.HLL_4).toCompactByteArray
  }
}

/** theta_sketch: Apache DataSketches theta sketches; the union (default nominal entries) is written as
 *  a compact ordered sketch. */
private[mergetree] final class ThetaSketchAgg extends BinaryUnionAgg("a serialized DataSketches theta sketch") {
  val name = AggregateFunction.ThetaSketch.name

  protected def union(acc: Array[Byte], input: Array[Byte]): Array[Byte] = {
    val u = SetOperation.builder().buildUnion()
    u.union(Memory.wrap(acc))
    u.union(Memory.wrap(input))
    u.getResult().toByteArray
  }
}
