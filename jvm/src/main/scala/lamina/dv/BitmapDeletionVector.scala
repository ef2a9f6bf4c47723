package lamina.dv

import java.nio.{ByteBuffer, ByteOrder}

import org.roaringbitmap.RoaringBitmap

/** Paimon's `BitmapDeletionVector`: positions below 2^31 in one 32-bit roaring bitmap.
 *
 *  {{{
 *  entry := length:int32 BE | magic:int32 BE (1581511376) | bitmap | crc:int32 BE
 *  length = 4 + |bitmap|;  crc = CRC32(magic | bitmap);  recorded length = length
 *  bitmap := RoaringBitmap portable serialization (little-endian), run-optimized
 *  }}}
 *  Invariant: `bitmap` is not modified after construction. */
final class BitmapDeletionVector private (bitmap: RoaringBitmap) extends DeletionVector {
  def isDeleted(position: Long): Boolean = position >= 0 && position <= Int.MaxValue && bitmap.contains(position.toInt)
  def cardinality: Long = bitmap.getLongCardinality

  override def ascendingCursor(): DeletionVector.Cursor = new DeletionVector.Cursor {
    private val deleted = bitmap.getIntIterator
    def isDeleted(position: Long): Boolean = position >= 0 && position <= Int.MaxValue && {
      deleted.advanceIfNeeded(position.toInt)
      deleted.hasNext && deleted.peekNext() == position.toInt
    }
  }
  def lastPosition: Long = if (bitmap.isEmpty) -1L else bitmap.last().toLong
  def recordedLength: Int = 4 + bitmap.serializedSizeInBytes()
  def deletedBetween(from: Long, until: Long): Long =
    bitmap.rangeCardinality(math.max(0L, from), math.min(until, 1L << 32))

  def positions: Iterator[Long] = {
    val it = bitmap.getIntIterator
    Iterator.continually(()).takeWhile(_ => it.hasNext).map(_ => Integer.toUnsignedLong(it.next()))
  }

  def encode: Array[Byte] = {
    val data = ByteBuffer.allocate(recordedLength)
    data.putInt(BitmapDeletionVector.Magic)
    bitmap.serialize(data.slice().order(ByteOrder.LITTLE_ENDIAN))
    DeletionVector.frame(data.array())
  }

  override def equals(o: Any): Boolean = o match {
    case b: BitmapDeletionVector => b.bitmapEquals(bitmap)
    case _ => false
  }
  private def bitmapEquals(other: RoaringBitmap): Boolean = bitmap.equals(other)
  override def hashCode(): Int = bitmap.hashCode()
  override def toString: String = s"BitmapDeletionVector($bitmap)"
}

object BitmapDeletionVector extends DeletionVector.Encoding {
  val Magic: Int = 1581511376

  def apply(positions: Iterable[Long]): BitmapDeletionVector = {
    val b = new RoaringBitmap()
    positions.foreach { p =>
      require(p >= 0 && p <= Int.MaxValue, s"position $p out of a 32-bit deletion vector's range")
      b.add(p.toInt)
    }
    b.runOptimize()
    new BitmapDeletionVector(b)
  }

  def entryLength(recordedLength: Int): Int = DeletionVector.LengthBytes + recordedLength + DeletionVector.CrcBytes

  def decodeBitmap(data: ByteBuffer): DeletionVector = {
    val b = new RoaringBitmap()
    b.deserialize(data)
    data.position(data.position() + b.serializedSizeInBytes())
    new BitmapDeletionVector(b)
  }
}
