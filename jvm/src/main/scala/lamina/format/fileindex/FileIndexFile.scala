package lamina.format.fileindex

import java.io.{ByteArrayOutputStream, DataOutputStream}
import java.nio.{BufferUnderflowException, ByteBuffer}

import lamina.errors.CorruptFileException

/** The file index of one data file, in Apache Paimon's file-index format (version 1): for each indexed
 *  column, for each index type (`bloom-filter`, ...), the bytes of that index. Kept in the manifest
 *  (`_EMBEDDED_FILE_INDEX`) when small, else in a `<data file>.index` file beside the data file.
 *
 *  Grammar (big-endian; `utf` is a 2-byte length then modified UTF-8, as Java's `writeUTF`):
 *  {{{
 *  file   := magic:i64 version:i32 headLen:i32 columns:i32 column* redundant:i32 body
 *  column := name:utf types:i32 (type:utf offset:i32 length:i32)*
 *  body   := the indexes' bytes, one after another in header order
 *  }}}
 *  `headLen` counts every byte before `body`; `offset` is from the start of the file (so the first
 *  index starts at `headLen`), or -1 with length 0 for an index with no bytes (the column held no
 *  value to index: Paimon's empty index, which no value matches). `redundant` is 0: a length of
 *  extra header bytes Paimon reserves. Invariant: every (offset, length) lies within the file. */
final class FileIndexFile private (val source: String, val bytes: Array[Byte],
    val entries: Map[String, Map[String, FileIndexFile.Slice]]) {

  /** The bytes of `column`'s index of `indexType`: None when not indexed so, Some(None) for an empty index. */
  def index(column: String, indexType: String): Option[Option[Array[Byte]]] =
    entries.get(column).flatMap(_.get(indexType)).map { s =>
      if (s.offset == FileIndexFile.EmptyOffset) None
      else Some(java.util.Arrays.copyOfRange(bytes, s.offset, s.offset + s.length))
    }
}

object FileIndexFile {
  val Magic: Long = 1493475289347502L
  val Version = 1
  val EmptyOffset: Int = -1

  /** Where one index's bytes lie in the file. */
  final case class Slice(offset: Int, length: Int)

  /** Encodes `indexes` (column -> index type -> bytes, None for an empty index), in their order. */
  def encode(indexes: Seq[(String, Seq[(String, Option[Array[Byte]])])]): Array[Byte] = {
    def utfLength(s: String): Int = 2 + modifiedUtf8Length(s)
    val headLen = 8 + 4 + 4 + 4 + indexes.map { case (c, ts) =>
      utfLength(c) + 4 + ts.map { case (t, _) => utfLength(t) + 4 + 4 }.sum
    }.sum + 4
    val out = new ByteArrayOutputStream(headLen + indexes.flatMap(_._2).map(_._2.fold(0)(_.length)).sum)
    val data = new DataOutputStream(out)
    data.writeLong(Magic)
    data.writeInt(Version)
    data.writeInt(headLen)
    data.writeInt(indexes.size)
    var offset = headLen
    indexes.foreach { case (column, types) =>
      data.writeUTF(column)
      data.writeInt(types.size)
      types.foreach { case (t, b) =>
        data.writeUTF(t)
        b match {
          case Some(bs) => data.writeInt(offset); data.writeInt(bs.length); offset += bs.length
          case None => data.writeInt(EmptyOffset); data.writeInt(0)
        }
      }
    }
    data.writeInt(0)
    indexes.foreach(_._2.foreach(_._2.foreach(data.write)))
    data.flush()
    out.toByteArray
  }

  /** Decodes the file index `bytes` read from `source` (a file's path, or the data file whose manifest
   *  entry embeds it); a [[CorruptFileException]] naming `source` when the bytes break the grammar. */
  def decode(source: String, bytes: Array[Byte]): FileIndexFile = {
    val buf = ByteBuffer.wrap(bytes)
    def corrupt(offset: Long, expected: String, actual: String, cause: Throwable = null): Nothing =
      throw new CorruptFileException(source, offset, expected, actual, "file index", cause)
    try {
      val magic = buf.getLong()
      if (magic != Magic) corrupt(0, s"file index magic $Magic", magic.toString)
      val version = buf.getInt()
      if (version != Version) corrupt(8, s"file index version $Version", version.toString)
      val headLen = buf.getInt()
      if (headLen < 24 || headLen > bytes.length) corrupt(12, s"a header length in [24, ${bytes.length}]", headLen.toString)
      val columnsAt = buf.position()
      val columns = buf.getInt()
      if (columns < 0 || columns > headLen) corrupt(columnsAt, "a column count", columns.toString)
      val entries = (0 until columns).map { _ =>
        val column = readUtf(buf)
        val typesAt = buf.position()
        val types = buf.getInt()
        if (types < 0 || types > headLen) corrupt(typesAt, "an index type count", types.toString)
        column -> (0 until types).map { _ =>
          val t = readUtf(buf)
          val at = buf.position()
          val slice = Slice(buf.getInt(), buf.getInt())
          val valid =
            if (slice.offset == EmptyOffset) slice.length == 0
            else slice.offset >= headLen && slice.length >= 0 && slice.offset.toLong + slice.length <= bytes.length
          if (!valid) corrupt(at, s"an index within bytes [$headLen, ${bytes.length})",
            s"offset ${slice.offset} length ${slice.length}")
          t -> slice
        }.toMap
      }.toMap
      val redundantAt = buf.position()
      val redundant = buf.getInt()
      if (buf.position() + math.max(0, redundant) != headLen)
        corrupt(redundantAt, s"a header ending at $headLen", s"one ending at ${buf.position() + redundant}")
      new FileIndexFile(source, bytes, entries)
    } catch {
      case e: BufferUnderflowException => corrupt(buf.position(), "more header bytes", "the end of the index", e)
      case e: java.io.UTFDataFormatException => corrupt(buf.position(), "a modified UTF-8 name", e.toString, e)
    }
  }

  private def readUtf(buf: ByteBuffer): String = {
    val n = buf.getShort() & 0xffff
    val b = new Array[Byte](n)
    buf.get(b)
    decodeModifiedUtf8(b)
  }

  private def modifiedUtf8Length(s: String): Int = s.map { c =>
    if (c >= 0x0001 && c <= 0x007f) 1 else if (c > 0x07ff) 3 else 2
  }.sum

  private def decodeModifiedUtf8(b: Array[Byte]): String = {
    val prefixed = ByteBuffer.allocate(b.length + 2).putShort(b.length.toShort).put(b).array()
    new java.io.DataInputStream(new java.io.ByteArrayInputStream(prefixed)).readUTF()
  }
}
