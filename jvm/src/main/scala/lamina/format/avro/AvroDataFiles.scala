package lamina.format.avro

import java.io.BufferedInputStream

import org.apache.avro.Schema
import org.apache.avro.file.{CodecFactory, DataFileStream, DataFileWriter => AvroFileWriter}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FSDataOutputStream
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.StructType

import lamina.errors.BadInputException
import lamina.format.DataFileWriter
import lamina.io.PathNames
import lamina.table.options.{AvroCodec, FileCompression}
import lamina.types.DataField

/** Avro data files as Apache Paimon writes and reads them: an Avro object container file
 *  (`docs/format/avro-data-files.md`) of one record per row, with Paimon's schema ([[AvroDataSchema]])
 *  in its header. Avro keeps no statistics: writers gather value statistics from the rows, as Paimon's
 *  Avro writer does. */
object AvroDataFiles {

  /** The codec of new files: `avro.codec` when set, else `compression` (of the option `compressionOption`,
   *  named in errors) mapped as Paimon maps it (`zstd` is Avro's `zstandard` at `zstdLevel`;
   *  `none`/`uncompressed` its `null` codec). */
  def codec(compression: FileCompression, explicit: Option[AvroCodec], zstdLevel: Int,
      compressionOption: String = "file.compression"): AvroCodecChoice =
    explicit match {
      case Some(c) => AvroCodecChoice(c, zstdLevel)
      case None => compression match {
          case FileCompression.Zstd => AvroCodecChoice(AvroCodec.Zstandard, zstdLevel)
          case FileCompression.Snappy => AvroCodecChoice(AvroCodec.Snappy, zstdLevel)
          case FileCompression.None | FileCompression.Uncompressed => AvroCodecChoice(AvroCodec.Null, zstdLevel)
          case other => throw new BadInputException(
              s"$compressionOption '$other' has no Avro codec: use zstd, snappy or none, or set avro.codec")
        }
    }

  /** What an executor needs to open writers of one file layout: the Avro schema (as JSON: Avro's
   *  schemas are not serializable everywhere), the rows' struct and the codec. */
  final case class WriterSpec(schemaJson: String, struct: StructType, codec: AvroCodecChoice) {
    @transient lazy val schema: Schema = new Schema.Parser().parse(schemaJson)
  }

  def writerSpec(fields: Seq[DataField], struct: StructType, codec: AvroCodecChoice): WriterSpec =
    WriterSpec(AvroDataSchema.of(fields).toString, struct, codec)

  /** Opens a new Avro data file at `path` (one block per 64 KB of encoded records, Avro's default,
   *  flushed only when full, as Paimon's writer does). */
  def writer(path: String, spec: WriterSpec, conf: Configuration): DataFileWriter = {
    val p = PathNames.of(path)
    val out: FSDataOutputStream = p.getFileSystem(conf).create(p, false)
    val file =
      try {
        val w = new AvroFileWriter[InternalRow](new AvroRowWriter(spec.schema, spec.struct))
        w.setCodec(spec.codec.factory)
        w.setFlushOnEveryBlock(false)
        w.create(spec.schema, out)
      } catch {
        case e: Exception =>
          out.close()
          throw e
      }
    new DataFileWriter {
      override def write(row: InternalRow): Unit = file.append(row)
      override def close(): Unit = file.close()
      override def length: Long = out.getPos
    }
  }

  /** The rows of the Avro data file at `path`, of `readColumns` (by name; [[AvroRowReader]]), in file
   *  order: the n-th row is the row at position n, which deletion vectors name. */
  def read(path: String, readColumns: StructType, conf: Configuration): Iterator[InternalRow] = {
    val p = PathNames.of(path)
    val in = new BufferedInputStream(p.getFileSystem(conf).open(p), 1 << 16)
    val stream =
      try new DataFileStream[InternalRow](in, new AvroRowReader(readColumns))
      catch {
        case e: Exception =>
          in.close()
          throw e
      }
    new Iterator[InternalRow] {
      private var open = true
      override def hasNext: Boolean = open && {
        val more = stream.hasNext
        if (!more) { stream.close(); open = false }
        more
      }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException("end of Avro file " + path)
        stream.next()
      }
    }
  }
}

/** An Avro codec and the zstd level it takes when it is `zstandard`. */
final case class AvroCodecChoice(codec: AvroCodec, zstdLevel: Int) {
  def factory: CodecFactory = codec match {
    // with zstd's content checksum (any zstd reader, Paimon's too, accepts it): a damaged byte of a
    // compressed block fails to decode instead of decoding to other values
    case AvroCodec.Zstandard => CodecFactory.zstandardCodec(zstdLevel, true)
    case AvroCodec.Deflate => CodecFactory.deflateCodec(CodecFactory.DEFAULT_DEFLATE_LEVEL)
    case AvroCodec.Xz => CodecFactory.xzCodec(CodecFactory.DEFAULT_XZ_LEVEL)
    case AvroCodec.Snappy => CodecFactory.snappyCodec()
    case AvroCodec.Bzip2 => CodecFactory.bzip2Codec()
    case AvroCodec.Null => CodecFactory.nullCodec()
  }
}
