package lamina.spark

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.io.NullWritable
import org.apache.orc.{OrcFile, TypeDescription}
import org.apache.orc.TypeDescription.Category
import org.apache.orc.mapred.OrcStruct
import org.apache.orc.mapreduce.{OrcMapreduceRecordReader, OrcMapreduceRecordWriter}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.BadInputException
import lamina.format.DataFileWriter
import lamina.io.PathNames
import lamina.types.SparkTypes

/** ORC data files as Apache Paimon writes and reads them, opened with ORC's own API (rows converted
 *  by Spark's ORC converters, reached through [[DataFileFormats]]), because Spark's ORC writer and
 *  reader follow Spark's type mapping, not Paimon's:
 *
 *  | Lamina / Paimon type            | Spark type        | ORC type (Paimon's)                  |
 *  |---------------------------------|-------------------|--------------------------------------|
 *  | TIMESTAMP (without time zone)   | TimestampNTZType  | `timestamp` (Spark: `bigint`)        |
 *  | TIMESTAMP WITH LOCAL TIME ZONE  | TimestampType     | `timestamp with local time zone`     |
 *  | CHAR(n) / VARCHAR(n)            | StringType        | `char(n)` / `varchar(n)` (Spark: `string`) |
 *
 *  Every column carries its Paimon field id as the ORC attribute `paimon.id`, as Paimon's writer sets it.
 *  A `timestamp` column holds its wall-clock value written and read as UTC (so a reader in any time
 *  zone gets the value that was written); a `timestamp with local time zone` holds the instant.
 *  Files that Lamina wrote through Spark's ORC writer before (a TIMESTAMP WITH LOCAL TIME ZONE as ORC
 *  `timestamp` in the writer's zone, marked with Spark's `spark.sql.catalyst.type` attribute; a
 *  TIMESTAMP as `bigint` microseconds) read as Spark reads them. */
object OrcFiles {
  val FieldIdAttribute = "paimon.id"
  private val SparkTypeAttribute = "spark.sql.catalyst.type"

  /** Paimon's ORC schema of a file's columns. */
  def orcSchema(struct: StructType): TypeDescription = {
    val td = TypeDescription.createStruct()
    struct.fields.foreach(f => td.addField(f.name, orcField(f)))
    td
  }

  private def orcField(f: StructField): TypeDescription = {
    val declared =
      if (f.metadata.contains(SparkTypes.CharVarcharKey)) Some(f.metadata.getString(SparkTypes.CharVarcharKey)) else None
    val td = (f.dataType, declared.map(DataType.fromDDL)) match {
      case (_: StringType, Some(CharType(n))) => TypeDescription.createChar().withMaxLength(n)
      case (_: StringType, Some(VarcharType(n))) => TypeDescription.createVarchar().withMaxLength(n)
      case (t, _) => orcType(t)
    }
    if (f.metadata.contains(SparkTypes.FieldIdKey))
      td.setAttribute(FieldIdAttribute, f.metadata.getLong(SparkTypes.FieldIdKey).toString)
    td
  }

  private def orcType(t: DataType): TypeDescription = t match {
    case BooleanType => TypeDescription.createBoolean()
    case ByteType => TypeDescription.createByte()
    case ShortType => TypeDescription.createShort()
    case IntegerType => TypeDescription.createInt()
    case LongType => TypeDescription.createLong()
    case FloatType => TypeDescription.createFloat()
    case DoubleType => TypeDescription.createDouble()
    case _: StringType => TypeDescription.createString()
    case BinaryType => TypeDescription.createBinary()
    case d: DecimalType => TypeDescription.createDecimal().withScale(d.scale).withPrecision(d.precision)
    case DateType => TypeDescription.createDate()
    case TimestampType => TypeDescription.createTimestampInstant()
    case TimestampNTZType => TypeDescription.createTimestamp()
    case s: StructType => orcSchema(s)
    case a: ArrayType => TypeDescription.createList(orcType(a.elementType))
    case m: MapType => TypeDescription.createMap(orcType(m.keyType), orcType(m.valueType))
    case other => throw new BadInputException(s"Type ${other.sql} cannot be stored in an ORC data file; use parquet")
  }

  /** `t` with every TIMESTAMP_NTZ that `orc` stores as an ORC timestamp seen as Spark's TIMESTAMP:
   *  Spark's converters then carry the microseconds of an ORC timestamp as they are (read and
   *  written as UTC), which for such a column is the wall-clock value. */
  private def convertedType(t: DataType, orc: TypeDescription): DataType = (t, orc.getCategory) match {
    case (TimestampNTZType, Category.TIMESTAMP | Category.TIMESTAMP_INSTANT) => TimestampType
    case (s: StructType, Category.STRUCT) =>
      val children = orc.getFieldNames.asScala.zip(orc.getChildren.asScala).toMap
      StructType(s.fields.map(f => children.get(f.name).fold(f)(c => f.copy(dataType = convertedType(f.dataType, c)))))
    case (a: ArrayType, Category.LIST) => a.copy(elementType = convertedType(a.elementType, orc.getChildren.get(0)))
    case (m: MapType, Category.MAP) =>
      m.copy(keyType = convertedType(m.keyType, orc.getChildren.get(0)),
        valueType = convertedType(m.valueType, orc.getChildren.get(1)))
    case _ => t
  }

  private def converted(struct: StructType, orc: TypeDescription): StructType =
    convertedType(struct, orc).asInstanceOf[StructType]

  /** Opens a new ORC file at `path` for rows of `fileSchema`; compression and stripe settings from `conf`. */
  def writer(path: String, fileSchema: StructType, conf: Configuration): DataFileWriter = {
    val schema = orcSchema(fileSchema)
    val file = OrcFile.createWriter(PathNames.of(path), OrcFile.writerOptions(conf).setSchema(schema).useUTCTimestamp(true))
    val records = new OrcMapreduceRecordWriter[OrcStruct](file)
    val serialize = DataFileFormats.orcSerializer(converted(fileSchema, schema))
    new DataFileWriter {
      override def write(row: InternalRow): Unit = records.write(NullWritable.get(), serialize(row))
      override def close(): Unit = records.close(null)
      override def length: Long = -1L
    }
  }

  /** Reads `readColumns` (by name) of the ORC file at `path` as rows. A column that the file lacks
   *  reads as null. */
  def read(path: String, readColumns: StructType, conf: Configuration): Iterator[InternalRow] = {
    val p = PathNames.of(path)
    // the options keep the file's tail once read: the UTC reader below reads no footer again
    val options = OrcFile.readerOptions(conf)
    val probe = OrcFile.createReader(p, options)
    val fileSchema = probe.getSchema
    val legacy = sparkTimestamps(fileSchema)
    val file = if (legacy) probe else OrcFile.createReader(p, options.useUTCTimestamp(true))
    val byName = fileSchema.getFieldNames.asScala.zip(fileSchema.getChildren.asScala).toMap
    val present = readColumns.fields.filter(f => byName.contains(f.name))
    val readSchema = TypeDescription.createStruct()
    present.foreach(f => readSchema.addField(f.name, byName(f.name).clone()))
    val ids = readColumns.fields.map(f => present.indexWhere(_.name == f.name))
    val deserialize = DataFileFormats.orcDeserializer(converted(readColumns, readSchema), ids)
    val records = new OrcMapreduceRecordReader[OrcStruct](file.rows(file.options().schema(readSchema)), readSchema)
    // ORC's reader trims the padding of CHAR(n) values; Paimon's readers return them padded
    val padded = readColumns.fields.zipWithIndex.collect {
      case (f, i) if charLength(f).isDefined => (i, charLength(f).get)
    }
    new Iterator[InternalRow] {
      private var fetched = false
      private var more = false
      override def hasNext: Boolean = {
        if (!fetched) {
          more = records.nextKeyValue()
          fetched = true
          if (!more) { records.close(); file.close() }
        }
        more
      }
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException("end of ORC file " + path)
        fetched = false
        val row = deserialize(records.getCurrentValue)
        padded.foreach { case (i, n) =>
          if (!row.isNullAt(i)) {
            val v = row.getUTF8String(i)
            if (v.numChars < n) row.update(i, v.rpad(n, UTF8String.fromString(" ")))
          }
        }
        row
      }
    }
  }

  private def charLength(f: StructField): Option[Int] =
    if (!f.metadata.contains(SparkTypes.CharVarcharKey)) None
    else DataType.fromDDL(f.metadata.getString(SparkTypes.CharVarcharKey)) match {
      case CharType(n) => Some(n)
      case _ => None
    }

  /** Whether the file holds a timestamp that Spark's ORC writer wrote (in its writer's time zone). */
  private def sparkTimestamps(td: TypeDescription): Boolean =
    (td.getCategory == Category.TIMESTAMP && td.getAttributeValue(SparkTypeAttribute) != null) ||
      Option(td.getChildren).exists(_.asScala.exists(sparkTimestamps))

  /** Whether Spark's vectorized ORC reader can read files of `schema` (it knows neither Paimon's
   *  timestamp types nor its CHAR columns). */
  def vectorizable(schema: StructType): Boolean = {
    def plain(t: DataType): Boolean = t match {
      case TimestampType | TimestampNTZType => false
      case s: StructType => s.fields.forall(f => !f.metadata.contains(SparkTypes.CharVarcharKey) && plain(f.dataType))
      case a: ArrayType => plain(a.elementType)
      case m: MapType => plain(m.keyType) && plain(m.valueType)
      case _ => true
    }
    plain(schema)
  }
}
