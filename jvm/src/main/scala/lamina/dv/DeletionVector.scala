package lamina.dv

import java.nio.{ByteBuffer, ByteOrder}
import java.util.zip.CRC32

import lamina.errors.CorruptFileException

/** The positions of the deleted rows of one data file (a row's position is its 0-based ordinal in
 *  the file). Invariant: every position is at least 0. Two encodings exist in Paimon's format, each
 *  its own class: [[BitmapDeletionVector]] (32-bit positions) and [[Bitmap64DeletionVector]]. */
trait DeletionVector {
  def isDeleted(position: Long): Boolean
  def cardinality: Long
  def isEmpty: Boolean = cardinality == 0

  /** The largest deleted position, or -1 when none is. */
  def lastPosition: Long

  /** The deleted positions, ascending. */
  def positions: Iterator[Long]

  /** A cursor that says whether positions, asked in non-decreasing order, are deleted: a pass over a
   *  file's rows in order asks it rather than searching the vector for every row. */
  def ascendingCursor(): DeletionVector.Cursor = new DeletionVector.Cursor {
    private val deleted = positions.buffered
    def isDeleted(position: Long): Boolean = {
      while (deleted.hasNext && deleted.head < position) deleted.next()
      deleted.hasNext && deleted.head == position
    }
  }

  /** How many positions in [from, until) are deleted. */
  def deletedBetween(from: Long, until: Long): Long

  /** The entry as it stands in a deletion-vector index file (see docs/format/deletion-vectors.md). */
  def encode: Array[Byte]

  /** The length a [[DeletionVectorRange]] records for this entry: Paimon records the 32-bit entry's
   *  length without its length prefix and CRC, the 64-bit entry's with both. */
  def recordedLength: Int

  /** `rows` of the data file in file order, without the deleted ones. */
  def skipDeleted[T](rows: Iterator[T], onDeleted: () => Unit = DeletionVector.Ignore): Iterator[T] =
    if (isEmpty) rows
    else {
      val deleted = ascendingCursor()
      var position = -1L // of the row the filter looks at: filter asks once per row, in order
      rows.filter { _ =>
        position += 1
        val gone = deleted.isDeleted(position)
        if (gone) onDeleted()
        !gone
      }
    }
}

object DeletionVector {

  /** What [[DeletionVector.skipDeleted]] does with a deleted row when told nothing: nothing. */
  val Ignore: () => Unit = () => ()

  /** See [[DeletionVector.ascendingCursor]]: positions asked in non-decreasing order. */
  trait Cursor {
    def isDeleted(position: Long): Boolean
  }

  /** A vector deleting `positions`, in the encoding `deletion-vectors.bitmap64` selects. */
  def of(positions: Iterable[Long], bitmap64: Boolean): DeletionVector =
    if (bitmap64) Bitmap64DeletionVector(positions) else BitmapDeletionVector(positions)

  /** Bytes before the bitmap data (its length) and after it (its CRC32). */
  val LengthBytes = 4
  val CrcBytes = 4

  /** Decodes one entry, `bytes` (from its length prefix to its CRC), read at `offset` of the index file
   *  `path`; `recordedLength` is what the index manifest records for it. A length, magic number or CRC
   *  that does not match, or a bitmap that does not fill its bytes, is a [[CorruptFileException]]
   *  naming the file: a damaged deletion vector must never be read as other positions. */
  def decode(bytes: Array[Byte], path: String, offset: Long, recordedLength: Int): DeletionVector = {
    if (bytes.length < LengthBytes + 4 + CrcBytes)
      throw new CorruptFileException(path, offset, s"a deletion vector of at least ${LengthBytes + 4 + CrcBytes} bytes",
        s"${bytes.length} bytes")
    val head = ByteBuffer.wrap(bytes) // big-endian
    val dataLength = head.getInt(0)
    val magic = head.getInt(LengthBytes)
    val kind =
      if (magic == BitmapDeletionVector.Magic) BitmapDeletionVector
      else if (Integer.reverseBytes(magic) == Bitmap64DeletionVector.Magic) Bitmap64DeletionVector
      else
        throw new CorruptFileException(path, offset + LengthBytes,
          s"magic number ${BitmapDeletionVector.Magic} or ${Bitmap64DeletionVector.Magic} (little-endian)", magic.toString)
    if (kind.entryLength(recordedLength) != bytes.length || dataLength != bytes.length - LengthBytes - CrcBytes)
      throw new CorruptFileException(path, offset,
        s"a deletion vector of ${bytes.length - LengthBytes - CrcBytes} data bytes " +
          s"(index manifest length $recordedLength)", s"a length prefix of $dataLength")
    val crcAt = LengthBytes + dataLength
    val expectedCrc = crc(bytes, LengthBytes, dataLength)
    val storedCrc = head.getInt(crcAt)
    if (storedCrc != expectedCrc)
      throw new CorruptFileException(path, offset + crcAt, s"CRC32 $expectedCrc of the deletion vector", storedCrc.toString)
    val data = ByteBuffer.wrap(bytes, LengthBytes + 4, dataLength - 4).slice().order(ByteOrder.LITTLE_ENDIAN)
    val dv =
      try kind.decodeBitmap(data)
      catch {
        case e: Exception =>
          throw new CorruptFileException(path, offset + LengthBytes + 4, "a serialized roaring bitmap", e.toString, "", e)
      }
    if (data.hasRemaining)
      throw new CorruptFileException(path, offset + LengthBytes + 4 + data.position(),
        s"the bitmap to end at its length $dataLength", s"${data.remaining()} more bytes")
    dv
  }

  /** What one encoding of Paimon's knows of its own entries. */
  private[dv] trait Encoding {
    val Magic: Int

    /** The bytes of an entry whose index manifest records `recordedLength`. */
    def entryLength(recordedLength: Int): Int

    /** The bitmap after the magic number, from a little-endian buffer that holds exactly it. */
    def decodeBitmap(data: ByteBuffer): DeletionVector
  }

  /** An entry: length prefix, `magicAndBitmap`, CRC32 of `magicAndBitmap`; both ints big-endian. */
  private[dv] def frame(magicAndBitmap: Array[Byte]): Array[Byte] = {
    val out = ByteBuffer.allocate(LengthBytes + magicAndBitmap.length + CrcBytes)
    out.putInt(magicAndBitmap.length).put(magicAndBitmap).putInt(crc(magicAndBitmap, 0, magicAndBitmap.length))
    out.array()
  }

  private def crc(bytes: Array[Byte], from: Int, length: Int): Int = {
    val c = new CRC32()
    c.update(bytes, from, length)
    c.getValue.toInt
  }
}
