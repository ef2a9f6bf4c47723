package lamina.types

/** Paimon's logical types. Every type carries its nullability; `asSQLString` prints the type exactly
 *  as Paimon's Java `DataType.asSQLString` does (this string is also the JSON form of atomic types in
 *  schema files), and [[DataTypeParser.parse]] is its inverse.
 *
 *  Equality is structural and includes nullability and, for rows, field ids and descriptions.
 */
sealed trait DataType extends Serializable {
  def nullable: Boolean
  def withNullable(n: Boolean): DataType
  def asSQLString: String

  /** Paimon appends " NOT NULL" to the printed form of every non-nullable type. */
  protected final def withNullability(s: String): String = if (nullable) s else s + " NOT NULL"

  override def toString: String = asSQLString
}

final case class BooleanType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): BooleanType = copy(nullable = n)
  def asSQLString: String = withNullability("BOOLEAN")
}

final case class TinyIntType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): TinyIntType = copy(nullable = n)
  def asSQLString: String = withNullability("TINYINT")
}

final case class SmallIntType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): SmallIntType = copy(nullable = n)
  def asSQLString: String = withNullability("SMALLINT")
}

final case class IntType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): IntType = copy(nullable = n)
  def asSQLString: String = withNullability("INT")
}

final case class BigIntType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): BigIntType = copy(nullable = n)
  def asSQLString: String = withNullability("BIGINT")
}

final case class FloatType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): FloatType = copy(nullable = n)
  def asSQLString: String = withNullability("FLOAT")
}

final case class DoubleType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): DoubleType = copy(nullable = n)
  def asSQLString: String = withNullability("DOUBLE")
}

/** Precision 1..38, scale 0..precision. Precision <= 18 is "compact": stored as an unscaled long. */
final case class DecimalType(precision: Int, scale: Int, nullable: Boolean = true) extends DataType {
  require(precision >= DecimalType.MinPrecision && precision <= DecimalType.MaxPrecision,
    s"DECIMAL precision must be between ${DecimalType.MinPrecision} and ${DecimalType.MaxPrecision}, got $precision")
  require(scale >= 0 && scale <= precision, s"DECIMAL scale must be between 0 and the precision $precision, got $scale")
  def withNullable(n: Boolean): DecimalType = copy(nullable = n)
  def asSQLString: String = withNullability(s"DECIMAL($precision, $scale)")
  def isCompact: Boolean = precision <= DecimalType.MaxCompactPrecision
}
object DecimalType {
  val MinPrecision = 1
  val MaxPrecision = 38
  val DefaultPrecision = 10

  /** Largest precision whose unscaled value always fits in a long. */
  val MaxCompactPrecision = 18
}

final case class CharType(length: Int, nullable: Boolean = true) extends DataType {
  require(length >= 1, s"CHAR length must be at least 1, got $length")
  def withNullable(n: Boolean): CharType = copy(nullable = n)
  def asSQLString: String = withNullability(s"CHAR($length)")
}

/** `VarCharType(Int.MaxValue)` is Paimon's STRING. */
final case class VarCharType(length: Int, nullable: Boolean = true) extends DataType {
  require(length >= 1, s"VARCHAR length must be at least 1, got $length")
  def withNullable(n: Boolean): VarCharType = copy(nullable = n)
  def asSQLString: String =
    withNullability(if (length == VarCharType.MaxLength) "STRING" else s"VARCHAR($length)")
}
object VarCharType {
  val MaxLength: Int = Int.MaxValue
  def string(nullable: Boolean = true): VarCharType = VarCharType(MaxLength, nullable)
}

final case class BinaryType(length: Int, nullable: Boolean = true) extends DataType {
  require(length >= 1, s"BINARY length must be at least 1, got $length")
  def withNullable(n: Boolean): BinaryType = copy(nullable = n)
  def asSQLString: String = withNullability(s"BINARY($length)")
}

/** `VarBinaryType(Int.MaxValue)` is Paimon's BYTES. */
final case class VarBinaryType(length: Int, nullable: Boolean = true) extends DataType {
  require(length >= 1, s"VARBINARY length must be at least 1, got $length")
  def withNullable(n: Boolean): VarBinaryType = copy(nullable = n)
  def asSQLString: String =
    withNullability(if (length == VarBinaryType.MaxLength) "BYTES" else s"VARBINARY($length)")
}
object VarBinaryType {
  val MaxLength: Int = Int.MaxValue
  def bytes(nullable: Boolean = true): VarBinaryType = VarBinaryType(MaxLength, nullable)
}

final case class DateType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): DateType = copy(nullable = n)
  def asSQLString: String = withNullability("DATE")
}

/** Time of day in milliseconds; Spark 4.0 has no counterpart, so it is readable in schemas only. */
final case class TimeType(precision: Int = 0, nullable: Boolean = true) extends DataType {
  require(precision >= 0 && precision <= 9, s"TIME precision must be between 0 and 9, got $precision")
  def withNullable(n: Boolean): TimeType = copy(nullable = n)
  def asSQLString: String = withNullability(s"TIME($precision)")
}

/** Timestamp without time zone (a wall-clock value): Spark's TimestampNTZType. Precision 0..9;
 *  precision <= 3 is "compact" (stored as epoch millis only). */
final case class TimestampType(precision: Int = 6, nullable: Boolean = true) extends DataType {
  require(precision >= 0 && precision <= 9, s"TIMESTAMP precision must be between 0 and 9, got $precision")
  def withNullable(n: Boolean): TimestampType = copy(nullable = n)
  def asSQLString: String = withNullability(s"TIMESTAMP($precision)")
  def isCompact: Boolean = precision <= TimestampType.MaxCompactPrecision
}
object TimestampType {
  val DefaultPrecision = 6
  val MaxCompactPrecision = 3
}

/** An instant, shown in the session time zone: Spark's TimestampType. Same storage as [[TimestampType]]. */
final case class LocalZonedTimestampType(precision: Int = 6, nullable: Boolean = true) extends DataType {
  require(precision >= 0 && precision <= 9,
    s"TIMESTAMP WITH LOCAL TIME ZONE precision must be between 0 and 9, got $precision")
  def withNullable(n: Boolean): LocalZonedTimestampType = copy(nullable = n)
  def asSQLString: String = withNullability(s"TIMESTAMP($precision) WITH LOCAL TIME ZONE")
  def isCompact: Boolean = precision <= TimestampType.MaxCompactPrecision
}

final case class ArrayType(element: DataType, nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): ArrayType = copy(nullable = n)
  def asSQLString: String = withNullability(s"ARRAY<${element.asSQLString}>")
}

/** A bag of elements; Paimon's Spark connector exposes it as MAP<element, INT NOT NULL>. */
final case class MultisetType(element: DataType, nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): MultisetType = copy(nullable = n)
  def asSQLString: String = withNullability(s"MULTISET<${element.asSQLString}>")
}

final case class MapType(key: DataType, value: DataType, nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): MapType = copy(nullable = n)
  def asSQLString: String = withNullability(s"MAP<${key.asSQLString}, ${value.asSQLString}>")
}

final case class RowType(fields: Seq[DataField], nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): RowType = copy(nullable = n)
  def asSQLString: String = withNullability(fields.map(_.asSQLString).mkString("ROW<", ", ", ">"))
  def fieldNames: Seq[String] = fields.map(_.name)
  def fieldTypes: Seq[DataType] = fields.map(_.dataType)
}

/** Semi-structured value; schema-level support only (Spark mapping and row codec reject it). */
final case class VariantType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): VariantType = copy(nullable = n)
  def asSQLString: String = withNullability("VARIANT")
}

/** Large binary stored in separate blob files; schema-level support only. */
final case class BlobType(nullable: Boolean = true) extends DataType {
  def withNullable(n: Boolean): BlobType = copy(nullable = n)
  def asSQLString: String = withNullability("BLOB")
}

/** A named, id-carrying column or nested row field. Ids are stable across renames; Parquet files carry
 *  them as field ids. */
final case class DataField(id: Int, name: String, dataType: DataType, description: Option[String] = None) {

  /** Paimon's form: backquoted name (backquotes doubled), type, then the description in single quotes
   *  (single quotes doubled). */
  def asSQLString: String = {
    val base = s"${DataField.quoteIdentifier(name)} ${dataType.asSQLString}"
    description match {
      case Some(d) => s"$base '${d.replace("'", "''")}'"
      case None => base
    }
  }
}
object DataField {
  def quoteIdentifier(name: String): String = "`" + name.replace("`", "``") + "`"
}
