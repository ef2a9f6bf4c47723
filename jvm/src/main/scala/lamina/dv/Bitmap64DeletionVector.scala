package lamina.dv

import java.nio.{ByteBuffer, ByteOrder}

import org.roaringbitmap.RoaringBitmap

/** Paimon's `Bitmap64DeletionVector` (`deletion-vectors.bitmap64`, Iceberg's layout): 64-bit positions
 *  as 32-bit roaring bitmaps keyed by the positions' high 32 bits.
 *
 *  {{{
 *  entry   := length:int32 BE | magic:int32 LE (1681511377) | bitmap64 | crc:int32 BE
 *  length = 4 + |bitmap64|;  crc = CRC32(magic | bitmap64);  recorded length = 4 + length + 4
 *  bitmap64 := count:int64 LE | count x (key:int32 LE | RoaringBitmap portable serialization)
 *  }}}
 *  Paimon writes every key from 0 to count - 1 (empty bitmaps included); keys must ascend.
 *  Invariant: `bitmaps(k)` holds the low 32 bits of the positions whose high 32 bits are k. */
final class Bitmap64DeletionVector private (bitmaps: IndexedSeq[RoaringBitmap]) extends DeletionVector {
  def isDeleted(position: Long): Boolean = {
    val key = position >>> 32
    position >= 0 && key < bitmaps.size && bitmaps(key.toInt).contains(position.toInt)
  }
  def cardinality: Long = bitmaps.map(_.getLongCardinality).sum
  def lastPosition: Long =
    bitmaps.indices.reverseIterator.find(k => !bitmaps(k).isEmpty)
      .map(k => (k.toLong << 32) | Integer.toUnsignedLong(bitmaps(k).last())).getOrElse(-1L)

  def deletedBetween(from: Long, until: Long): Long = {
    var n = 0L
    var p = math.max(0L, from)
    while (p < until) {
      val key = p >>> 32
      if (key >= bitmaps.size) return n
      val end = math.min(until, (key + 1) << 32)
      n += bitmaps(key.toInt).rangeCardinality(p & 0xffffffffL, end - (key << 32))
      p = end
    }
    n
  }

  def positions: Iterator[Long] = bitmaps.indices.iterator.flatMap { k =>
    val it = bitmaps(k).getIntIterator
    Iterator.continually(()).takeWhile(_ => it.hasNext).map(_ => (k.toLong << 32) | Integer.toUnsignedLong(it.next()))
  }

  private def bitmapBytes: Int = 8 + bitmaps.map(4 + _.serializedSizeInBytes()).sum
  def recordedLength: Int = DeletionVector.LengthBytes + 4 + bitmapBytes + DeletionVector.CrcBytes

  def encode: Array[Byte] = {
    val data = ByteBuffer.allocate(4 + bitmapBytes).order(ByteOrder.LITTLE_ENDIAN)
    data.putInt(Bitmap64DeletionVector.Magic).putLong(bitmaps.size.toLong)
    bitmaps.indices.foreach { k =>
      data.putInt(k)
      bitmaps(k).serialize(data)
    }
    DeletionVector.frame(data.array())
  }

  override def equals(o: Any): Boolean = o match {
    case b: Bitmap64DeletionVector => b.sameBitmaps(bitmaps)
    case _ => false
  }
  private def sameBitmaps(other: IndexedSeq[RoaringBitmap]): Boolean = bitmaps == other
  override def hashCode(): Int = bitmaps.hashCode()
  override def toString: String = s"Bitmap64DeletionVector(${bitmaps.mkString(", ")})"
}

object Bitmap64DeletionVector extends DeletionVector.Encoding {
  val Magic: Int = 1681511377

  def apply(positions: Iterable[Long]): Bitmap64DeletionVector = {
    require(positions.forall(_ >= 0), "deletion vector positions must be at least 0")
    val keys = if (positions.isEmpty) 0 else (positions.max >>> 32).toInt + 1
    val bitmaps = IndexedSeq.fill(keys)(new RoaringBitmap())
    positions.foreach(p => bitmaps((p >>> 32).toInt).add(p.toInt))
    bitmaps.foreach(_.runOptimize())
    new Bitmap64DeletionVector(bitmaps)
  }

  def entryLength(recordedLength: Int): Int = recordedLength

  def decodeBitmap(data: ByteBuffer): DeletionVector = {
    val count = data.getLong()
    if (count < 0 || count > Int.MaxValue) throw new IllegalArgumentException(s"bitmap count $count")
    val bitmaps = IndexedSeq.newBuilder[RoaringBitmap]
    var next = 0
    (0L until count).foreach { _ =>
      val key = data.getInt()
      if (key < next) throw new IllegalArgumentException(s"bitmap key $key after key ${next - 1}")
      while (next < key) { bitmaps += new RoaringBitmap(); next += 1 }
      val b = new RoaringBitmap()
      b.deserialize(data)
      data.position(data.position() + b.serializedSizeInBytes())
      bitmaps += b
      next += 1
    }
    new Bitmap64DeletionVector(bitmaps.result())
  }
}
