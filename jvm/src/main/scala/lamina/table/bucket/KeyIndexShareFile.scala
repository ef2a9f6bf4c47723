package lamina.table.bucket

import java.io.{BufferedInputStream, BufferedOutputStream, DataInputStream, DataOutputStream, EOFException, IOException}
import java.nio.ByteBuffer
import java.util.UUID

import scala.collection.mutable

import org.apache.hadoop.fs.Path

import lamina.errors.CorruptFileException
import lamina.io.{FileIO, PathNames, StorageFailure}

/** One assigner group's share of a table's live keys, as a cross-partition upsert's bootstrap scan
 *  hands it to the group's write task ([[KeyIndexShares]]): a temporary file of one write.
 *
 *  {{{
 *  file    := record* trailer
 *  record  := partition: int32 | bucket: int32 | keyLength: int32 | key: keyLength bytes
 *  trailer := records: int64 | magic: int32 = 0x4C4B4953 ("LKIS")
 *  }}}
 *  Big-endian. `partition` indexes [[KeyIndexShares.partitions]]; `key` is the trimmed primary key's
 *  binary row. The trailer makes a cut file corrupt, never short: a key left out of a group's index
 *  would be placed a second time. */
object KeyIndexShareFile {

  val Magic: Int = 0x4c4b4953
  val RecordHeaderBytes: Int = 3 * Integer.BYTES
  val TrailerBytes: Int = java.lang.Long.BYTES + Integer.BYTES

  /** Appends one record to a chunk of records. */
  def append(out: DataOutputStream, partition: Int, bucket: Int, key: Array[Byte]): Unit = {
    out.writeInt(partition)
    out.writeInt(bucket)
    out.writeInt(key.length)
    out.write(key)
  }

  /** Writes `chunks` (each whole records) as the file at `path`, through a sibling renamed into place
   *  (not hidden, so that `remove_orphan_files` finds one a killed task left) (a retried task replaces it whole); the live key count of each (partition, bucket) written. */
  def write(fileIO: FileIO, path: Path, chunks: Iterator[Array[Byte]]): Map[(Int, Int), Long] = {
    val counts = mutable.HashMap.empty[(Int, Int), Long]
    val tmp = PathNames.child(path.getParent, s"${path.getName}.${UUID.randomUUID()}.tmp", "temporary file")
    val fs = fileIO.fs(path)
    try {
      val out = new DataOutputStream(new BufferedOutputStream(fs.create(tmp, true), 1 << 16))
      var records = 0L
      try chunks.foreach { chunk =>
          val b = ByteBuffer.wrap(chunk)
          while (b.hasRemaining) {
            val key = (b.getInt(), b.getInt())
            val size = b.getInt()
            b.position(b.position() + size)
            counts.update(key, counts.getOrElse(key, 0L) + 1)
            records += 1
          }
          out.write(chunk)
        }
      finally {
        out.writeLong(records)
        out.writeInt(Magic)
        out.close()
      }
      fs.delete(path, false)
      if (!fs.rename(tmp, path)) throw StorageFailure(fs, "rename into place", tmp)
    } catch {
      case e: IOException => fileIO.deleteQuietly(tmp); throw StorageFailure(fs, "write", path, e)
    }
    counts.toMap
  }

  /** Hands each record of the file at `path` to `onRecord` (partition, bucket, key); the records read. */
  def read(fileIO: FileIO, path: Path)(onRecord: (Int, Int, Array[Byte]) => Unit): Long = {
    val fs = fileIO.fs(path)
    val length =
      try fs.getFileStatus(path).getLen
      catch { case e: IOException => throw StorageFailure(fs, "read", path, e) }
    def corrupt(offset: Long, expected: String, actual: String) =
      new CorruptFileException(path.toString, offset, expected, actual)
    if (length < TrailerBytes) throw corrupt(0, s"at least $TrailerBytes bytes", s"$length")
    val end = length - TrailerBytes
    val in = new DataInputStream(new BufferedInputStream(fs.open(path), 1 << 16))
    try {
      var offset = 0L
      var records = 0L
      while (offset < end) {
        val partition = in.readInt()
        val bucket = in.readInt()
        val size = in.readInt()
        if (size < 0 || offset + RecordHeaderBytes + size > end)
          throw corrupt(offset + 2 * Integer.BYTES, s"a key length within ${end - offset - RecordHeaderBytes}", s"$size")
        val key = new Array[Byte](size)
        in.readFully(key)
        onRecord(partition, bucket, key)
        offset += RecordHeaderBytes + size
        records += 1
      }
      val count = in.readLong()
      val magic = in.readInt()
      if (magic != Magic) throw corrupt(end + java.lang.Long.BYTES, f"magic 0x$Magic%08X", f"0x$magic%08X")
      if (count != records) throw corrupt(end, s"$records records", s"$count")
      records
    } catch {
      case e: EOFException => throw new CorruptFileException(path.toString, -1, s"$length bytes", "fewer", cause = e)
      case e: IOException => throw StorageFailure(fs, "read", path, e)
    } finally in.close()
  }
}
