package lamina.table.manifest

import java.io.ByteArrayOutputStream

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.avro.Schema
import org.apache.avro.file.{CodecFactory, DataFileReader, DataFileWriter, SeekableByteArrayInput}
import org.apache.avro.generic.{GenericDatumReader, GenericDatumWriter, GenericRecord}
import org.apache.hadoop.fs.Path

import lamina.errors.CorruptFileException
import lamina.io.FileIO
import lamina.table.options.ManifestCompression

/** Reads and writes whole Avro object-container files of manifests and manifest lists. */
object AvroFiles {
  def codec(compression: ManifestCompression): CodecFactory = compression match {
    // with zstd's content checksum: a damaged byte in a compressed block fails to decode instead of
    // decoding to other values (snappy blocks carry a CRC of their own; deflate's have none)
    case ManifestCompression.Zstd => CodecFactory.zstandardCodec(1, true)
    case ManifestCompression.Deflate => CodecFactory.deflateCodec(6)
    case ManifestCompression.Snappy => CodecFactory.snappyCodec()
    case ManifestCompression.Null => CodecFactory.nullCodec()
  }

  def write(
      fileIO: FileIO, path: Path, schema: Schema, records: Iterator[GenericRecord], compression: ManifestCompression): Long = {
    val bytes = encode(schema, records, compression)
    fileIO.writeBytes(path, bytes)
    bytes.length.toLong
  }

  def encode(schema: Schema, records: Iterator[GenericRecord], compression: ManifestCompression): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    val w = new DataFileWriter[GenericRecord](new GenericDatumWriter[GenericRecord](schema))
    w.setCodec(codec(compression))
    w.create(schema, out)
    records.foreach(w.append)
    w.close()
    out.toByteArray
  }

  def read(fileIO: FileIO, path: Path): Seq[GenericRecord] = read(fileIO, path, identity[GenericRecord])

  /** Every record of the file, turned into a value by `decode`. Cut or flipped bytes make Avro's
   *  reader raise IOExceptions, runtime exceptions and even NullPointerExceptions, and a damaged
   *  header can make `decode` fail: all of them are a [[CorruptFileException]] naming the file. */
  def read[T](fileIO: FileIO, path: Path, decode: GenericRecord => T): Seq[T] = {
    val bytes =
      try fileIO.readBytes(path)
      catch {
        case e: org.apache.hadoop.fs.ChecksumException =>
          throw new CorruptFileException(path.toString, e.getPos, "bytes matching their checksum", "a mismatch", "", e)
      }
    try {
      val reader = new DataFileReader[GenericRecord](new SeekableByteArrayInput(bytes), new GenericDatumReader[GenericRecord]())
      try {
        val out = ArrayBuffer.empty[T]
        while (reader.hasNext) out += decode(reader.next())
        // Avro's reader takes a cut inside a block header for the end of the file: every byte must
        // belong to a block it read
        val end = reader.previousSync()
        if (end != bytes.length)
          throw new CorruptFileException(path.toString, end, s"the end of the file or a whole block",
            s"${bytes.length - end} more bytes that are not")
        out.toSeq
      } finally reader.close()
    } catch {
      case e: java.io.IOException =>
        throw new CorruptFileException(path.toString, 0, "an Avro object container file", e.toString, "", e)
      case e: org.apache.avro.AvroRuntimeException =>
        throw new CorruptFileException(path.toString, 0, "a valid Avro record", e.toString, "", e)
      case NonFatal(e) =>
        throw new CorruptFileException(path.toString, 0, "a readable Avro record", e.toString, "", e)
    }
  }
}
