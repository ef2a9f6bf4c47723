package lamina.format.avro

import scala.jdk.CollectionConverters._

import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.io.{DatumWriter, Encoder}
import org.apache.avro.util.Utf8
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types._

/** Encodes Catalyst rows of `struct` as records of the Avro schema `schema` ([[AvroDataSchema]]), as
 *  Paimon's `AvroRowDatumWriter` encodes its rows: timestamps as epoch milliseconds or microseconds
 *  (the schema's logical type says which; a TIMESTAMP without time zone as its wall-clock value read as
 *  UTC), decimals as their unscaled two's-complement bytes, maps with other than string keys as arrays
 *  of key-value records. Writers are built once per file schema. */
final class AvroRowWriter(schema: Schema, struct: StructType) extends DatumWriter[InternalRow] {
  import AvroRowWriter._

  private val fields: (InternalRow, Encoder) => Unit = recordWriter(schema, struct)

  override def setSchema(s: Schema): Unit = ()

  override def write(row: InternalRow, out: Encoder): Unit = fields(row, out)
}

object AvroRowWriter {

  /** Writes the value at an ordinal of a row or array. */
  private type FieldWriter = (SpecializedGetters, Int, Encoder) => Unit

  /** Writes a row of `struct` as a record of `schema` (its fields in the struct's order). */
  private def recordWriter(schema: Schema, struct: StructType): (InternalRow, Encoder) => Unit = {
    val writers = schema.getFields.asScala.toArray.map(f => writerOf(f.schema(), struct(f.name()).dataType))
    val n = writers.length
    (row, out) => {
      var j = 0
      while (j < n) { writers(j)(row, j, out); j += 1 }
    }
  }

  /** Writes a map's entries, each its key then its value: as an Avro map (string keys) or as an array of
   *  key-value records. */
  private def entriesWriter(isMap: Boolean, key: FieldWriter, value: FieldWriter): FieldWriter = (c, i, out) => {
    val map = c.getMap(i)
    val keys = map.keyArray()
    val values = map.valueArray()
    val n = map.numElements()
    if (isMap) out.writeMapStart() else out.writeArrayStart()
    out.setItemCount(n.toLong)
    var j = 0
    while (j < n) { out.startItem(); key(keys, j, out); value(values, j, out); j += 1 }
    if (isMap) out.writeMapEnd() else out.writeArrayEnd()
  }

  private def writerOf(schema: Schema, t: DataType): FieldWriter = schema.getType match {
    case Schema.Type.UNION =>
      val nullIndex = schema.getTypes.asScala.indexWhere(_.getType == Schema.Type.NULL)
      val valueIndex = 1 - nullIndex
      val value = writerOf(schema.getTypes.get(valueIndex), t)
      (c, i, out) =>
        if (c.isNullAt(i)) out.writeIndex(nullIndex)
        else { out.writeIndex(valueIndex); value(c, i, out) }
    case Schema.Type.BOOLEAN => (c, i, out) => out.writeBoolean(c.getBoolean(i))
    case Schema.Type.INT => t match {
        case ByteType => (c, i, out) => out.writeInt(c.getByte(i).toInt)
        case ShortType => (c, i, out) => out.writeInt(c.getShort(i).toInt)
        case _ => (c, i, out) => out.writeInt(c.getInt(i))
      }
    case Schema.Type.LONG => schema.getLogicalType match {
        case _: LogicalTypes.TimestampMillis | _: LogicalTypes.LocalTimestampMillis =>
          (c, i, out) => out.writeLong(Math.floorDiv(c.getLong(i), 1000L))
        case _ => (c, i, out) => out.writeLong(c.getLong(i))
      }
    case Schema.Type.FLOAT => (c, i, out) => out.writeFloat(c.getFloat(i))
    case Schema.Type.DOUBLE => (c, i, out) => out.writeDouble(c.getDouble(i))
    case Schema.Type.STRING => (c, i, out) => out.writeString(new Utf8(c.getUTF8String(i).getBytes))
    case Schema.Type.BYTES => t match {
        case d: DecimalType =>
          (c, i, out) => out.writeBytes(c.getDecimal(i, d.precision, d.scale).toJavaBigDecimal.unscaledValue.toByteArray)
        case _ => (c, i, out) => out.writeBytes(c.getBinary(i))
      }
    case Schema.Type.RECORD =>
      val s = t.asInstanceOf[StructType]
      val record = recordWriter(schema, s)
      val n = s.length
      (c, i, out) => record(c.getStruct(i, n), out)
    case Schema.Type.ARRAY if t.isInstanceOf[MapType] =>
      val m = t.asInstanceOf[MapType]
      val entry = schema.getElementType
      entriesWriter(isMap = false, writerOf(entry.getField("key").schema(), m.keyType),
        writerOf(entry.getField("value").schema(), m.valueType))
    case Schema.Type.ARRAY =>
      val element = writerOf(schema.getElementType, t.asInstanceOf[ArrayType].elementType)
      (c, i, out) => {
        val a = c.getArray(i)
        val n = a.numElements()
        out.writeArrayStart()
        out.setItemCount(n.toLong)
        var j = 0
        while (j < n) { out.startItem(); element(a, j, out); j += 1 }
        out.writeArrayEnd()
      }
    case Schema.Type.MAP =>
      entriesWriter(isMap = true, (c, j, out) => out.writeString(new Utf8(c.getUTF8String(j).getBytes)),
        writerOf(schema.getValueType, t.asInstanceOf[MapType].valueType))
    case other => throw new IllegalArgumentException(s"Avro type $other is not a data-file column type")
  }
}
