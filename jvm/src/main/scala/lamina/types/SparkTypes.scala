package lamina.types

import lamina.errors.BadInputException
import org.apache.spark.sql.{types => st}

/** Mapping between Paimon types and Spark SQL types.
 *
 *  Paimon -> Spark: CHAR/VARCHAR/STRING -> StringType, BINARY/VARBINARY/BYTES -> BinaryType,
 *  TIMESTAMP(p) -> TimestampNTZType, TIMESTAMP(p) WITH LOCAL TIME ZONE -> TimestampType,
 *  MULTISET<T> -> MAP<T, INT NOT NULL> (as Paimon's Spark connector does). TIME, VARIANT and BLOB
 *  have no Spark 4.0 mapping here and raise [[BadInputException]].
 *
 *  Spark -> Paimon: StringType -> STRING, CharType/VarcharType (or a StringType field carrying
 *  Spark's char/varchar metadata) -> CHAR/VARCHAR, TimestampType -> TIMESTAMP(6) WITH LOCAL TIME ZONE,
 *  TimestampNTZType -> TIMESTAMP(6), BinaryType -> BYTES. Intervals, variant, collated strings, NullType
 *  and user-defined types raise [[BadInputException]] naming the type.
 */
object SparkTypes {

  /** Spark field metadata key holding a field id; Spark's Parquet writer emits it as the field id. */
  val FieldIdKey = "parquet.field.id"
  val CommentKey = "comment"

  /** Spark's own key (CharVarcharUtils) marking a StringType column as declared CHAR(n)/VARCHAR(n). */
  val CharVarcharKey = "__CHAR_VARCHAR_TYPE_STRING"

  def toSpark(t: DataType): st.DataType = t match {
    case _: BooleanType => st.BooleanType
    case _: TinyIntType => st.ByteType
    case _: SmallIntType => st.ShortType
    case _: IntType => st.IntegerType
    case _: BigIntType => st.LongType
    case _: FloatType => st.FloatType
    case _: DoubleType => st.DoubleType
    case d: DecimalType => st.DecimalType(d.precision, d.scale)
    case _: CharType | _: VarCharType => st.StringType
    case _: BinaryType | _: VarBinaryType => st.BinaryType
    case _: DateType => st.DateType
    case _: TimestampType => st.TimestampNTZType
    case _: LocalZonedTimestampType => st.TimestampType
    case ArrayType(e, _) => st.ArrayType(toSpark(e), e.nullable)
    case MultisetType(e, _) => st.MapType(toSpark(e), st.IntegerType, valueContainsNull = false)
    case MapType(k, v, _) => st.MapType(toSpark(k), toSpark(v), v.nullable)
    case RowType(fields, _) => toSparkStruct(fields)
    case _: TimeType | _: VariantType | _: BlobType =>
      throw new BadInputException(s"Type ${t.asSQLString} is not supported in Spark")
  }

  def toSparkStruct(fields: Seq[DataField]): st.StructType = st.StructType(fields.map(toSparkField))

  def toSparkField(f: DataField): st.StructField = {
    val md = new st.MetadataBuilder().putLong(FieldIdKey, f.id.toLong)
    f.description.foreach(d => md.putString(CommentKey, d))
    f.dataType match {
      case CharType(n, _) => md.putString(CharVarcharKey, s"char($n)")
      case VarCharType(n, _) if n != VarCharType.MaxLength => md.putString(CharVarcharKey, s"varchar($n)")
      case _ =>
    }
    st.StructField(f.name, toSpark(f.dataType), f.dataType.nullable, md.build())
  }

  /** Converts a Spark type. Nested struct fields get ids from `nextId`, each field's type first and the
   *  field itself after (the order Paimon uses when it reassigns nested ids). */
  def fromSpark(t: st.DataType, nullable: Boolean, nextId: () => Int): DataType = t match {
    case st.BooleanType => BooleanType(nullable)
    case st.ByteType => TinyIntType(nullable)
    case st.ShortType => SmallIntType(nullable)
    case st.IntegerType => IntType(nullable)
    case st.LongType => BigIntType(nullable)
    case st.FloatType => FloatType(nullable)
    case st.DoubleType => DoubleType(nullable)
    case d: st.DecimalType => DecimalType(d.precision, d.scale, nullable)
    case st.CharType(n) => CharType(n, nullable)
    case st.VarcharType(n) => VarCharType(n, nullable)
    case s: st.StringType if s.collationId == st.StringType.collationId => VarCharType(VarCharType.MaxLength, nullable)
    case st.BinaryType => VarBinaryType(VarBinaryType.MaxLength, nullable)
    case st.DateType => DateType(nullable)
    case st.TimestampType => LocalZonedTimestampType(TimestampType.DefaultPrecision, nullable)
    case st.TimestampNTZType => TimestampType(TimestampType.DefaultPrecision, nullable)
    case st.ArrayType(e, containsNull) => ArrayType(fromSpark(e, containsNull, nextId), nullable)
    case st.MapType(k, v, valueContainsNull) =>
      MapType(fromSpark(k, nullable = false, nextId), fromSpark(v, valueContainsNull, nextId), nullable)
    case s: st.StructType =>
      RowType(s.fields.toIndexedSeq.map { f =>
          val ft = fromSparkField(f, nextId)
          DataField(nextId(), f.name, ft, f.getComment())
        }, nullable)
    case other =>
      throw new BadInputException(s"Spark type ${other.sql} is not supported by Lamina tables")
  }

  /** The Paimon type of a Spark field, honouring Spark's char/varchar metadata on StringType fields. */
  def fromSparkField(f: st.StructField, nextId: () => Int): DataType = f.dataType match {
    case s: st.StringType
        if !s.isInstanceOf[st.CharType] && !s.isInstanceOf[st.VarcharType] &&
          f.metadata.contains(CharVarcharKey) =>
      fromSpark(st.DataType.fromDDL(f.metadata.getString(CharVarcharKey)), f.nullable, nextId)
    case other => fromSpark(other, f.nullable, nextId)
  }
}
