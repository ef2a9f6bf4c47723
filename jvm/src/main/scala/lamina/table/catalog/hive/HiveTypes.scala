package lamina.table.catalog.hive

import lamina.types._

/** The Hive 2.3 type name of a column, as Paimon's Hive catalog writes it into the metastore's storage
 *  descriptor. Only engines that read the table through Hive see these names; the schema files stay
 *  the table's definition. */
object HiveTypes {

  /** Hive's longest CHAR and VARCHAR: longer ones are `string`. */
  val MaxCharLength = 255
  val MaxVarCharLength = 65535

  def name(t: DataType): String = t match {
    case _: BooleanType => "boolean"
    case _: TinyIntType => "tinyint"
    case _: SmallIntType => "smallint"
    case _: IntType => "int"
    case _: BigIntType => "bigint"
    case _: FloatType => "float"
    case _: DoubleType => "double"
    case d: DecimalType => s"decimal(${d.precision},${d.scale})"
    case c: CharType => if (c.length > MaxCharLength) "string" else s"char(${c.length})"
    case v: VarCharType => if (v.length > MaxVarCharLength) "string" else s"varchar(${v.length})"
    case _: BinaryType | _: VarBinaryType | _: BlobType => "binary"
    case _: DateType => "date"
    case _: TimeType => "string"
    case _: TimestampType | _: LocalZonedTimestampType => "timestamp" // Hive 2.3 has no local-zone timestamp
    case a: ArrayType => s"array<${name(a.element)}>"
    case m: MultisetType => s"map<${name(m.element)},int>"
    case m: MapType => s"map<${name(m.key)},${name(m.value)}>"
    case r: RowType => r.fields.map(f => s"${f.name}:${name(f.dataType)}").mkString("struct<", ",", ">")
    case _: VariantType => "struct<value:binary,metadata:binary>"
  }
}
