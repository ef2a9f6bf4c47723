package lamina.format

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import lamina.types._
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.Decimal
import org.apache.spark.unsafe.types.UTF8String

import scala.io.Source
import scala.jdk.CollectionConverters._

/** The rows pypaimon serialized (tests/fixtures/gen_binary_rows.py), with their Spark internal values. */
final case class GoldenRow(
    name: String,
    types: IndexedSeq[DataType],
    values: IndexedSeq[Any],
    serialized: Array[Byte],
    hash: Int,
    buckets: Map[Int, Int]) {
  def row: GenericInternalRow = new GenericInternalRow(values.toArray)
}

object GoldenRows {
  private val mapper = new ObjectMapper()

  lazy val all: IndexedSeq[GoldenRow] = {
    val src = Source.fromResource("golden/binaryrow/rows.jsonl", getClass.getClassLoader)(scala.io.Codec.UTF8)
    try src.getLines().filter(_.nonEmpty).map(parse).toIndexedSeq
    finally src.close()
  }

  private def parse(line: String): GoldenRow = {
    val n = mapper.readTree(line)
    val types = n.get("types").elements().asScala.map(t => DataTypeParser.parse(t.asText())).toIndexedSeq
    val values = types.zip(n.get("values").elements().asScala.toSeq).map { case (t, v) => sparkValue(t, v) }
    val buckets = n.get("buckets").fields().asScala.map(e => e.getKey.toInt -> e.getValue.asInt()).toMap
    GoldenRow(n.get("name").asText(), types, values, hex(n.get("serialized").asText()), n.get("hash").asInt(), buckets)
  }

  def hex(s: String): Array[Byte] = s.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray

  def toHex(b: Array[Byte]): String = b.map(x => f"${x & 0xff}%02x").mkString

  private def sparkValue(t: DataType, v: JsonNode): Any = if (v.isNull) null
  else t match {
    case _: BooleanType => v.asBoolean()
    case _: TinyIntType => v.asInt().toByte
    case _: SmallIntType => v.asInt().toShort
    case _: IntType | _: DateType => v.asInt()
    case _: BigIntType | _: TimestampType | _: LocalZonedTimestampType => v.asLong()
    case _: FloatType => if (v.isTextual) java.lang.Float.parseFloat(v.asText()) else v.asDouble().toFloat
    case _: DoubleType => if (v.isTextual) java.lang.Double.parseDouble(v.asText()) else v.asDouble()
    case d: DecimalType => Decimal(new java.math.BigDecimal(v.asText()), d.precision, d.scale)
    case _: CharType | _: VarCharType => UTF8String.fromString(v.asText())
    case _: BinaryType | _: VarBinaryType => hex(v.asText())
    case other => throw new IllegalArgumentException(s"no golden values for $other")
  }

  /** Field equality for Spark internal values: byte arrays by content, NaN equal to NaN. */
  def sameValue(a: Any, b: Any): Boolean = (a, b) match {
    case (x: Array[Byte], y: Array[Byte]) => java.util.Arrays.equals(x, y)
    case (x: Float, y: Float) => java.lang.Float.compare(x, y) == 0
    case (x: Double, y: Double) => java.lang.Double.compare(x, y) == 0
    case _ => a == b
  }
}
