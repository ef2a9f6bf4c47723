package lamina.format.avro

import org.apache.avro.{LogicalType, LogicalTypes, Schema, SchemaBuilder}

import lamina.errors.BadInputException
import lamina.types._

/** The Avro schema of a data file's columns, as Apache Paimon's `AvroSchemaConverter` derives it, so
 *  that each side reads the other's files:
 *
 *  | Paimon type                          | Avro schema                                            |
 *  |--------------------------------------|--------------------------------------------------------|
 *  | BOOLEAN, INT, BIGINT, FLOAT, DOUBLE  | boolean, int, long, float, double                      |
 *  | TINYINT, SMALLINT                    | int                                                    |
 *  | CHAR(n), VARCHAR(n), STRING          | string                                                 |
 *  | BINARY(n), VARBINARY(n), BYTES       | bytes                                                  |
 *  | DECIMAL(p, s)                        | bytes, logical `decimal(p, s)` (unscaled, big endian)  |
 *  | DATE                                 | int, logical `date`                                    |
 *  | TIMESTAMP(0..3) / (4..6)             | long, logical `timestamp-millis` / `timestamp-micros`  |
 *  | TIMESTAMP(0..3) / (4..6) WITH LOCAL TIME ZONE | long, `local-timestamp-millis` / `-micros`    |
 *  | ARRAY<t>                             | array of t                                             |
 *  | MAP<STRING or CHAR/VARCHAR, v>       | map of v                                               |
 *  | MAP<k, v> (other keys), MULTISET<k>  | array of record {key, value} with logical type `map`   |
 *  | ROW<...>                             | record                                                 |
 *
 *  A nullable type is the union `["null", t]` (null first: Paimon's readers take branch 0 as null), and
 *  a nullable record field defaults to null. The top record is named `org.apache.paimon.avro.generated.record`,
 *  a nested one after its path (`<parent>_<field>`, a map's entries `<parent>_key`/`_value`), because
 *  Avro needs each record's name once in a schema. Timestamps of precision 7 to 9 have no Avro form
 *  (Paimon refuses them too). */
object AvroDataSchema {
  val TopRecordName = "org.apache.paimon.avro.generated.record"

  /** Logical type `map` marking an array of key-value records (Paimon's `LogicalMap`). */
  val MapLogicalType = "map"

  def of(fields: Seq[DataField]): Schema = record(fields, TopRecordName)

  private def record(fields: Seq[DataField], name: String): Schema = {
    var assembler = SchemaBuilder.builder().record(name).fields()
    fields.foreach { f =>
      val t = f.name
      val typed = assembler.name(t).`type`(schemaOf(f.dataType, s"${name}_$t"))
      assembler = if (f.dataType.nullable) typed.withDefault(null) else typed.noDefault()
    }
    assembler.endRecord()
  }

  private def schemaOf(t: DataType, name: String): Schema = {
    val base = SchemaBuilder.builder()
    val s: Schema = t match {
      case _: BooleanType => base.booleanType()
      case _: TinyIntType | _: SmallIntType | _: IntType => base.intType()
      case _: BigIntType => base.longType()
      case _: FloatType => base.floatType()
      case _: DoubleType => base.doubleType()
      case _: CharType | _: VarCharType => base.stringType()
      case _: BinaryType | _: VarBinaryType => base.bytesType()
      case d: DecimalType => LogicalTypes.decimal(d.precision, d.scale).addToSchema(base.bytesType())
      case _: DateType => LogicalTypes.date().addToSchema(base.intType())
      case ts: TimestampType =>
        timestamp(ts.precision, t, LogicalTypes.timestampMillis(), LogicalTypes.timestampMicros()).addToSchema(base.longType())
      case ts: LocalZonedTimestampType =>
        timestamp(ts.precision, t, LogicalTypes.localTimestampMillis(), LogicalTypes.localTimestampMicros())
          .addToSchema(base.longType())
      case ArrayType(e, _) => Schema.createArray(schemaOf(e, name))
      case MapType(k, v, _) => mapOf(k, v, name)
      case MultisetType(e, _) => mapOf(e, IntType(nullable = false), name)
      case RowType(fields, _) => record(fields, name)
      case other => throw new BadInputException(s"Type ${other.asSQLString} cannot be stored in an Avro data file")
    }
    if (t.nullable) Schema.createUnion(base.nullType(), s) else s
  }

  private def timestamp(precision: Int, t: DataType, millis: LogicalType, micros: LogicalType): LogicalType =
    if (precision <= 3) millis
    else if (precision <= 6) micros
    else throw new BadInputException(
      s"Type ${t.asSQLString} cannot be stored in an Avro data file: Avro holds timestamps of precision up to 6")

  private def mapOf(k: DataType, v: DataType, name: String): Schema =
    if (isStringKey(k)) Schema.createMap(schemaOf(v, name))
    else {
      val key = SchemaBuilder.builder().record(name).fields().name("key").`type`(schemaOf(k, s"${name}_key")).noDefault()
      val value = key.name("value").`type`(schemaOf(v, s"${name}_value"))
      val entry = (if (v.nullable) value.withDefault(null) else value.noDefault()).endRecord()
      val array = Schema.createArray(entry)
      array.addProp(LogicalType.LOGICAL_TYPE_PROP, MapLogicalType)
      array
    }

  /** Whether a map of keys of type `k` is an Avro map (string keys) rather than an array of entries. */
  def isStringKey(k: DataType): Boolean = k match {
    case _: CharType | _: VarCharType => true
    case _ => false
  }
}
