package lamina.format.fileindex

import java.io.{ByteArrayOutputStream, DataOutputStream, IOException}
import java.nio.{BufferUnderflowException, ByteBuffer, ByteOrder}

import scala.jdk.CollectionConverters._

import org.roaringbitmap.{InvalidRoaringFormat, RoaringBitmap}

import lamina.errors.CorruptFileException

/** One column's bitmap index in a file index (index type `bitmap`, Apache Paimon's `BitmapFileIndex`):
 *  for each distinct value, and for NULL, the positions (row numbers in the data file) holding it.
 *
 *  Bytes (big-endian; `key` as [[BitmapKey]]; `bitmap` is RoaringBitmap's portable serialization,
 *  little-endian, run-optimized):
 *  {{{
 *  v2    := 2:i8 rowCount:i32 values:i32 hasNull:bool [nullOffset:i32 nullLength:i32]
 *           blocks:i32 (firstKey:key blockOffset:i32)* blocksLength:i32 block* body
 *  block := entries:i32 (key offset:i32 length:i32)*           entries sorted by key
 *  v1    := 1:i8 rowCount:i32 values:i32 hasNull:bool [nullOffset:i32] (key offset:i32)* body
 *  body  := [null bitmap] bitmap*
 *  }}}
 *  A value held by one row only has no bitmap: its offset is `-1 - row`. Other offsets are from the
 *  start of `body`, lengths the bitmaps' sizes (-1 for a single row); `blockOffset` is from the first
 *  block. The null bitmap comes first in `body` (offset 0) unless NULL is in one row or none;
 *  `nullLength` is the null bitmap's serialized size even then. Blocks close before exceeding
 *  `blockSize` bytes (4 + per entry 8 + the key's size). The body's bitmaps follow the iteration order
 *  of Paimon's `java.util.HashMap` of keys, which a `HashMap` of the same keys reproduces.
 *  Invariant: every position is below `rowCount`. */
final class BitmapIndex private (val rowCount: Int, nulls: RoaringBitmap, values: java.util.Map[AnyRef, RoaringBitmap]) {

  /** The rows holding `key` ([[BitmapKey]]'s object; null for NULL). */
  def rows(key: AnyRef): RoaringBitmap = if (key == null) nulls else values.getOrDefault(key, new RoaringBitmap())
}

object BitmapIndex {
  val IndexType = "bitmap"
  val Version1 = 1
  val Version2 = 2
  val DefaultBlockSize = 16 * 1024L

  /** Collects one file's column values, in row order, into its bitmap index. */
  final class Writer(keys: BitmapKey, version: Int, blockSize: Long) {
    require(version == Version1 || version == Version2, s"bitmap index version $version")
    private val bitmaps = new java.util.HashMap[AnyRef, RoaringBitmap]()
    private val nulls = new RoaringBitmap()
    private var rows = 0

    /** Adds the next row's value (a Catalyst value, or null). */
    def add(value: Any): Unit = {
      if (value == null) nulls.add(rows)
      else bitmaps.computeIfAbsent(keys.key(value), _ => new RoaringBitmap()).add(rows)
      rows += 1
    }

    def encode(): Array[Byte] = {
      val nullBytes = serialize(nulls)
      // body order: the null bitmap (when it needs one), then the HashMap's
      val inBody = nulls.getCardinality > 1
      var next = if (inBody) nullBytes.length else 0
      val entries = bitmaps.asScala.toSeq.map { case (k, b) =>
        if (b.getCardinality == 1) (k, -1 - b.first(), -1, None)
        else {
          val bytes = serialize(b)
          val at = next
          next += bytes.length
          (k, at, bytes.length, Some(bytes))
        }
      }
      val out = new ByteArrayOutputStream()
      val data = new DataOutputStream(out)
      data.writeByte(version)
      data.writeInt(rows)
      data.writeInt(entries.size)
      data.writeBoolean(!nulls.isEmpty)
      if (!nulls.isEmpty) {
        data.writeInt(if (nulls.getCardinality == 1) -1 - nulls.first() else 0)
        if (version == Version2) data.writeInt(nullBytes.length)
      }
      if (version == Version1) entries.foreach { case (k, at, _, _) => keys.write(data, k); data.writeInt(at) }
      else {
        val blocks = this.blocks(entries.map { case (k, at, len, _) => (k, at, len) }.sortBy(_._1)(keys.ordering))
        data.writeInt(blocks.size)
        var blockOffset = 0
        blocks.foreach { b =>
          keys.write(data, b.head._1)
          data.writeInt(blockOffset)
          blockOffset += blockBytes(b)
        }
        data.writeInt(blockOffset)
        blocks.foreach { b =>
          data.writeInt(b.size)
          b.foreach { case (k, at, len) => keys.write(data, k); data.writeInt(at); data.writeInt(len) }
        }
      }
      if (inBody) data.write(nullBytes)
      entries.foreach(_._4.foreach(data.write))
      data.flush()
      out.toByteArray
    }

    private def entryBytes(k: AnyRef): Int = 8 + keys.size(k)
    private def blockBytes(b: Seq[(AnyRef, Int, Int)]): Int = 4 + b.map(e => entryBytes(e._1)).sum

    /** Sorted entries cut into blocks of at most `blockSize` bytes (a block takes at least one entry). */
    private def blocks(sorted: Seq[(AnyRef, Int, Int)]): Seq[Seq[(AnyRef, Int, Int)]] = {
      val done = Seq.newBuilder[Seq[(AnyRef, Int, Int)]]
      var open = Vector.empty[(AnyRef, Int, Int)]
      var bytes = 4L // the open block's size, kept as it grows: one pass over the entries
      sorted.foreach { e =>
        if (open.nonEmpty && bytes + entryBytes(e._1) > blockSize) { done += open; open = Vector.empty; bytes = 4L }
        open :+= e
        bytes += entryBytes(e._1)
      }
      if (open.nonEmpty) done += open
      done.result()
    }
  }

  private def serialize(b: RoaringBitmap): Array[Byte] = {
    b.runOptimize()
    val buf = ByteBuffer.allocate(b.serializedSizeInBytes())
    b.serialize(buf)
    buf.array()
  }

  /** The bitmap index `bytes` of `column` in the file index of `source`, keyed by `keys`; a
   *  [[CorruptFileException]] naming `source` when they break the grammar or name a row past the end. */
  def decode(source: String, column: String, keys: BitmapKey, bytes: Array[Byte]): BitmapIndex = {
    val in = ByteBuffer.wrap(bytes)
    def corrupt(at: Long, expected: String, actual: String, cause: Throwable = null): Nothing =
      throw new CorruptFileException(source, at, expected, actual, s"bitmap index of column $column", cause)
    try {
      val version = in.get().toInt
      if (version != Version1 && version != Version2) corrupt(0, "bitmap index version 1 or 2", version.toString)
      val rowCount = in.getInt()
      if (rowCount < 0) corrupt(1, "a row count", rowCount.toString)
      val count = in.getInt()
      if (count < 0 || count > rowCount) corrupt(5, s"at most $rowCount values", count.toString)
      val hasNull = in.get() != 0
      val nullOffset = if (hasNull) in.getInt() else 0
      if (hasNull && version == Version2) in.getInt() // the null bitmap's length: its bitmap says
      val offsets: Seq[(AnyRef, Int)] =
        if (version == Version1) (0 until count).map(_ => (keys.read(in), in.getInt()))
        else {
          val blocks = in.getInt()
          if (blocks < 0 || blocks > count) corrupt(in.position() - 4, s"at most $count index blocks", blocks.toString)
          (0 until blocks).foreach { _ => keys.read(in); in.getInt() }
          in.getInt() // the blocks' length: they follow
          val entries = (0 until blocks).flatMap { _ =>
            val n = in.getInt()
            if (n < 0 || n > count) corrupt(in.position() - 4, s"at most $count entries", n.toString)
            (0 until n).map { _ =>
              val k = keys.read(in)
              val at = in.getInt()
              in.getInt()
              (k, at)
            }
          }
          if (entries.size != count) corrupt(in.position(), s"$count entries", entries.size.toString)
          entries
        }
      val body = in.position()
      def bitmap(at: Int): RoaringBitmap = {
        val b = new RoaringBitmap()
        if (at < 0) {
          if (-1L - at >= rowCount) corrupt(body, s"a row below $rowCount", (-1L - at).toString)
          b.add(-1 - at)
        } else {
          if (body.toLong + at >= bytes.length) corrupt(body, s"a bitmap offset below ${bytes.length - body}", at.toString)
          b.deserialize(ByteBuffer.wrap(bytes, body + at, bytes.length - body - at).slice().order(ByteOrder.LITTLE_ENDIAN))
          // every row, not only the last: a damaged container need not be sorted
          val it = b.getIntIterator
          while (it.hasNext) {
            val row = Integer.toUnsignedLong(it.next())
            if (row >= rowCount) corrupt(body + at, s"rows below $rowCount", s"row $row")
          }
        }
        b
      }
      // Java's equality of keys, as Paimon's: -0.0 and 0.0 are two values
      val values = new java.util.HashMap[AnyRef, RoaringBitmap]()
      offsets.foreach { case (k, at) => values.put(k, bitmap(at)) }
      if (values.size != count) corrupt(body, s"$count distinct values", values.size.toString)
      new BitmapIndex(rowCount, if (hasNull) bitmap(nullOffset) else new RoaringBitmap(), values)
    } catch {
      case e: CorruptFileException => throw e
      case e @ (_: BufferUnderflowException | _: IndexOutOfBoundsException | _: IllegalArgumentException |
          _: InvalidRoaringFormat | _: IOException | _: NegativeArraySizeException) =>
        corrupt(in.position(), "a bitmap index", e.toString, e)
    }
  }
}
