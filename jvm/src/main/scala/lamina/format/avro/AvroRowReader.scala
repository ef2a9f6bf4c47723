package lamina.format.avro

import java.io.IOException
import java.math.{BigDecimal => JBigDecimal, BigInteger}

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.avro.{LogicalType, LogicalTypes, Schema}
import org.apache.avro.generic.GenericDatumReader
import org.apache.avro.io.{DatumReader, Decoder}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** Decodes the records of an Avro data file into Catalyst rows of `readColumns`, by the writer's
 *  schema that the file's header gives ([[setSchema]]: Paimon's or Lamina's, [[AvroDataSchema]]),
 *  matching columns and nested fields by name: the file's other columns are skipped undecoded. Every
 *  requested column must be in the file (readers ask only for the columns of the schema the file was
 *  written with): one missing means a damaged header, an IOException, not a column of nulls; a nested
 *  field the file lacks reads as null. Values are decoded by the file's Avro type (a
 *  `timestamp-millis` column is scaled to microseconds, whatever the precision the table declares),
 *  into the Spark type requested. Each record is a new row. */
final class AvroRowReader(readColumns: StructType) extends DatumReader[InternalRow] {
  import AvroRowReader._

  private var record: Decoder => InternalRow = _

  override def setSchema(fileSchema: Schema): Unit = {
    val missing = readColumns.fieldNames.filter(n => fileSchema.getField(n) == null)
    if (missing.nonEmpty)
      throw new IOException(
        s"the file's Avro schema lacks the columns ${missing.mkString(", ")}: ${fileSchema.toString.take(200)}")
    record = recordReader(fileSchema, readColumns)
  }

  override def read(reuse: InternalRow, in: Decoder): InternalRow = record(in)
}

object AvroRowReader {
  private type ValueReader = Decoder => Any

  /** Reads a record of `schema` as a row of `struct`. */
  private def recordReader(schema: Schema, struct: StructType): Decoder => InternalRow = {
    val fields = schema.getFields.asScala.toArray
    val slots: Array[Int] = fields.map(f => struct.fieldNames.indexOf(f.name()))
    val readers: Array[ValueReader] = fields.zip(slots).map {
      case (f, -1) =>
        val s = f.schema()
        (in: Decoder) => { GenericDatumReader.skip(s, in); null }
      case (f, k) => readerOf(f.schema(), struct(k).dataType)
    }
    val width = struct.length
    in => {
      val row = new GenericInternalRow(width)
      var j = 0
      while (j < readers.length) {
        val v = readers(j)(in)
        if (slots(j) >= 0) row.update(slots(j), v)
        j += 1
      }
      row
    }
  }

  private def readerOf(schema: Schema, t: DataType): ValueReader = schema.getType match {
    case Schema.Type.UNION =>
      val branches = schema.getTypes.asScala.toArray.map(b => if (b.getType == Schema.Type.NULL) null else readerOf(b, t))
      in => {
        val r = branches(in.readIndex())
        if (r == null) null else r(in)
      }
    case Schema.Type.NULL => in => { in.readNull(); null }
    case Schema.Type.BOOLEAN => _.readBoolean()
    case Schema.Type.INT => t match {
        case ByteType => _.readInt().toByte
        case ShortType => _.readInt().toShort
        case _ => _.readInt()
      }
    case Schema.Type.LONG =>
      if (isMillis(schema.getLogicalType)) in => Math.multiplyExact(in.readLong(), 1000L) else _.readLong()
    case Schema.Type.FLOAT => _.readFloat()
    case Schema.Type.DOUBLE => _.readDouble()
    case Schema.Type.STRING => utf8
    case Schema.Type.BYTES => t match {
        case d: DecimalType =>
          in => {
            val unscaled = new BigInteger(bytes(in))
            if (unscaled.bitLength < 64) Decimal(unscaled.longValue, d.precision, d.scale)
            else Decimal(new JBigDecimal(unscaled, d.scale), d.precision, d.scale)
          }
        case _ => bytes
      }
    case Schema.Type.RECORD =>
      val record = recordReader(schema, t.asInstanceOf[StructType])
      in => record(in)
    case Schema.Type.ARRAY if t.isInstanceOf[MapType] =>
      val m = t.asInstanceOf[MapType]
      val entry = schema.getElementType
      entriesReader(isMap = false, readerOf(entry.getField("key").schema(), m.keyType),
        readerOf(entry.getField("value").schema(), m.valueType))
    case Schema.Type.ARRAY =>
      val element = readerOf(schema.getElementType, t.asInstanceOf[ArrayType].elementType)
      in => {
        val out = ArrayBuffer.empty[Any]
        var n = in.readArrayStart()
        while (n > 0) {
          var j = 0L
          while (j < n) { out += element(in); j += 1 }
          n = in.arrayNext()
        }
        new GenericArrayData(out.toArray)
      }
    case Schema.Type.MAP => entriesReader(isMap = true, utf8, readerOf(schema.getValueType, t.asInstanceOf[MapType].valueType))
    case other => throw new IllegalArgumentException(s"Avro type $other is not a data-file column type")
  }

  /** Reads a map's entries, each its key then its value: an Avro map (string keys) or an array of
   *  key-value records. */
  private def entriesReader(isMap: Boolean, key: ValueReader, value: ValueReader): ValueReader = in => {
    val keys = ArrayBuffer.empty[Any]
    val values = ArrayBuffer.empty[Any]
    var n = if (isMap) in.readMapStart() else in.readArrayStart()
    while (n > 0) {
      var j = 0L
      while (j < n) { keys += key(in); values += value(in); j += 1 }
      n = if (isMap) in.mapNext() else in.arrayNext()
    }
    new ArrayBasedMapData(new GenericArrayData(keys.toArray), new GenericArrayData(values.toArray))
  }

  private def isMillis(l: LogicalType): Boolean = l match {
    case _: LogicalTypes.TimestampMillis | _: LogicalTypes.LocalTimestampMillis => true
    case _ => false
  }

  private def utf8(in: Decoder): UTF8String = {
    val s = in.readString(null)
    UTF8String.fromBytes(s.getBytes, 0, s.getByteLength)
  }

  private def bytes(in: Decoder): Array[Byte] = {
    val b = in.readBytes(null)
    val out = new Array[Byte](b.remaining())
    b.get(out)
    out
  }
}
