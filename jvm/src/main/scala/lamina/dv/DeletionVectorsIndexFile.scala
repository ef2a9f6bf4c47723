package lamina.dv

import java.io.{EOFException, FileNotFoundException}

import org.apache.hadoop.fs.ChecksumException

import lamina.errors.CorruptFileException
import lamina.io.{FileIO, PathNames}

/** A deletion-vector index file of Paimon's format (`index/index-<uuid>-<n>`, index type
 *  `DELETION_VECTORS`): a version byte, then the entries of [[DeletionVector.encode]] back to back, in
 *  the order of the data files they belong to; the index manifest says which data file's entry starts
 *  where ([[DeletionVectorRange]]). A bucket's vectors fill as many files as [[encodeRolling]] rolls.
 *
 *  {{{
 *  index file := version:int8 (1) | entry*
 *  }}} */
object DeletionVectorsIndexFile {
  val Version: Byte = 1
  val HeaderBytes = 1
  val IndexType = "DELETION_VECTORS"

  /** The file's bytes and each vector's range, in the order given. */
  def encode(vectors: Seq[(String, DeletionVector)]): (Array[Byte], Seq[DeletionVectorRange]) =
    encodeEntries(vectors.map { case (dataFile, dv) => (dataFile, dv, dv.encode) })

  /** The index files of `vectors`, rolled as Paimon's `DeletionVectorIndexFileWriter.writeWithRolling`
   *  rolls them: in the order given, each vector is added to the current file, and the file is closed
   *  once it is larger than `targetSize` bytes. A vector is never split, so a file passes the target by
   *  at most its last vector, and a vector larger than the target closes the file it lands in. None
   *  for no vectors. */
  def encodeRolling(vectors: Seq[(String, DeletionVector)], targetSize: Long): Seq[(Array[Byte], Seq[DeletionVectorRange])] = {
    val entries = vectors.map { case (dataFile, dv) => (dataFile, dv, dv.encode) }
    rolled(entries.map(_._3.length), targetSize).map(r => encodeEntries(entries.slice(r.start, r.end)))
  }

  /** Which entries (by index) go to each file, given their sizes in bytes: see [[encodeRolling]]. Pure. */
  def rolled(entrySizes: Seq[Int], targetSize: Long): Seq[Range] = {
    val files = Seq.newBuilder[Range]
    var start = 0
    var size = HeaderBytes.toLong
    entrySizes.indices.foreach { i =>
      size += entrySizes(i)
      if (size > targetSize || i == entrySizes.size - 1) {
        files += (start until i + 1)
        start = i + 1
        size = HeaderBytes.toLong
      }
    }
    files.result()
  }

  private def encodeEntries(entries: Seq[(String, DeletionVector, Array[Byte])]): (Array[Byte], Seq[DeletionVectorRange]) = {
    val out = new java.io.ByteArrayOutputStream(HeaderBytes + entries.map(_._3.length).sum)
    out.write(Version.toInt)
    val ranges = entries.map { case (dataFile, dv, bytes) =>
      val start = out.size()
      out.write(bytes)
      DeletionVectorRange(dataFile, start, dv.recordedLength, Some(dv.cardinality))
    }
    (out.toByteArray, ranges)
  }

  /** The vector of `file`, checked: the file's size, the version byte, the range inside the file, the entry's own
   *  length, magic and CRC, and the cardinality the index manifest records. Any mismatch, and a file
   *  cut short, is a [[CorruptFileException]] naming the index file. */
  def read(fileIO: FileIO, file: DeletionFile): DeletionVector = {
    val path = PathNames.of(file.indexFilePath)
    val r = file.range
    val in =
      try fileIO.fs(path).open(path)
      catch {
        case e: FileNotFoundException =>
          throw new CorruptFileException(file.indexFilePath, -1, "a deletion-vector index file", "no file", e.getMessage, e)
      }
    try {
      val size = fileIO.fileSize(path)
      if (size != file.indexFileSize)
        throw new CorruptFileException(file.indexFilePath, -1, s"${file.indexFileSize} bytes, as the index manifest says",
          s"$size bytes")
      val version = in.read()
      if (version != Version)
        throw new CorruptFileException(file.indexFilePath, 0, s"deletion-vector index version $Version", version.toString)
      if (r.offset < HeaderBytes || r.length < 0)
        throw new CorruptFileException(file.indexFilePath, r.offset, "a deletion-vector range inside the file",
          s"offset ${r.offset}, length ${r.length} for ${r.dataFileName}")
      val start = r.offset.toLong
      // the recorded length counts the length prefix and CRC for one encoding only: read the prefix first
      in.seek(start)
      val dataLength = in.readInt()
      val entryLength = DeletionVector.LengthBytes.toLong + dataLength + DeletionVector.CrcBytes
      if (dataLength < 4 || (entryLength != r.length && entryLength != r.length.toLong + 8))
        throw new CorruptFileException(file.indexFilePath, start,
          s"a deletion vector of length ${r.length} for ${r.dataFileName}",
          s"a length prefix of $dataLength")
      val bytes = new Array[Byte](entryLength.toInt)
      in.seek(start)
      in.readFully(bytes)
      val dv = DeletionVector.decode(bytes, file.indexFilePath, start, r.length)
      r.cardinality.filter(_ != dv.cardinality).foreach { c =>
        throw new CorruptFileException(file.indexFilePath, start, s"$c deleted rows of ${r.dataFileName}",
          dv.cardinality.toString)
      }
      dv
    } catch {
      case e: ChecksumException =>
        throw new CorruptFileException(file.indexFilePath, e.getPos, "bytes matching their checksum", "a mismatch", "", e)
      case e: EOFException =>
        throw new CorruptFileException(file.indexFilePath, r.offset, s"a deletion vector for ${r.dataFileName}",
          "the end of the file", "", e)
    } finally in.close()
  }
}
