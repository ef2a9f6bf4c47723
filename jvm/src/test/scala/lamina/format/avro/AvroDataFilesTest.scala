package lamina.format.avro

import java.io.{File, IOException}
import java.nio.file.Files

import org.apache.avro.file.DataFileReader
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types.{Decimal, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.format.{DataFileFormat, DataFileWriters, StatsMode, ValueStats}
import lamina.io.{PathNames, SerializableConfiguration}
import lamina.table.options.{AvroCodec, FileCompression}
import lamina.types._

class AvroDataFilesTest extends AnyFunSuite {
  private val conf = new Configuration()

  private val fields = Seq(
    DataField(0, "id", IntType(nullable = false)),
    DataField(1, "b", BooleanType()),
    DataField(2, "ti", TinyIntType()),
    DataField(3, "si", SmallIntType()),
    DataField(4, "bi", BigIntType()),
    DataField(5, "f", FloatType()),
    DataField(6, "d", DoubleType()),
    DataField(7, "dec1", DecimalType(10, 2)),
    DataField(8, "dec2", DecimalType(30, 5)),
    DataField(9, "s", VarCharType.string()),
    DataField(10, "c", CharType(4)),
    DataField(11, "bin", VarBinaryType.bytes()),
    DataField(12, "dt", DateType()),
    DataField(13, "ts3", TimestampType(3)),
    DataField(14, "ts6", TimestampType(6)),
    DataField(15, "ltz3", LocalZonedTimestampType(3)),
    DataField(16, "ltz6", LocalZonedTimestampType(6)),
    DataField(17, "arr", ArrayType(IntType())),
    DataField(18, "m", MapType(VarCharType.string(nullable = false), IntType())),
    DataField(19, "mi", MapType(IntType(nullable = false), VarCharType.string())),
    DataField(20, "st", RowType(Seq(DataField(21, "x", IntType()), DataField(22, "y", VarCharType.string())))))

  private val struct: StructType = SparkTypes.toSparkStruct(fields)

  private def str(s: String) = UTF8String.fromString(s)
  private def map(k: Array[Any], v: Array[Any]) = new ArrayBasedMapData(new GenericArrayData(k), new GenericArrayData(v))

  private val full: InternalRow = InternalRow(1, true, 1.toByte, 2.toShort, 3L, 1.5f, 2.25, Decimal(BigDecimal("12.34"), 10, 2),
    Decimal(BigDecimal("-12345678901234567890.12345"), 30, 5), str("x"), str("ab  "), Array[Byte](-54, -2), 19723,
    -500000L, 1704112200123456L, 1704112200123000L, -1L, new GenericArrayData(Array[Any](1, null)),
    map(Array(str("a")), Array(null)), map(Array(7), Array(str("seven"))), InternalRow(null, str("y")))

  private val nulls: InternalRow = InternalRow.fromSeq(2 +: Seq.fill(fields.size - 1)(null))

  private def tempPath(): String = Files.createTempDirectory("avro-files").resolve("data-1.avro").toString

  private val codec = AvroDataFiles.codec(FileCompression.Zstd, None, 1)

  private def write(rows: Seq[InternalRow]): String = {
    val path = tempPath()
    val w = AvroDataFiles.writer(path, AvroDataFiles.writerSpec(fields, struct, codec), conf)
    rows.foreach(w.write)
    w.close()
    path
  }

  test("the schema is Paimon's: nullable types as unions with null first, maps of other keys as entry arrays") {
    val s = AvroDataSchema.of(Seq(fields(0), fields(7), fields(13), fields(16), fields(19), fields(20)))
    assert(s.toString ==
      """{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[""" +
      """{"name":"id","type":"int"},""" +
      """{"name":"dec1","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},""" +
      """{"name":"ts3","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},""" +
      """{"name":"ltz6","type":["null",{"type":"long","logicalType":"local-timestamp-micros"}],"default":null},""" +
      """{"name":"mi","type":["null",{"type":"array","items":{"type":"record","name":"record_mi","fields":[""" +
      """{"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]},"logicalType":"map"}],"default":null},""" +
      """{"name":"st","type":["null",{"type":"record","name":"record_st","fields":[""" +
      """{"name":"x","type":["null","int"],"default":null},{"name":"y","type":["null","string"],"default":null}]}],"default":null}]}""")
  }

  test("every type round-trips, NULLs too; millisecond timestamps keep their milliseconds") {
    val rows = AvroDataFiles.read(write(Seq(full, nulls)), struct, conf).toList
    assert(rows.size == 2)
    val r = rows.head
    assert(r.getInt(0) == 1 && r.getBoolean(1) && r.getByte(2) == 1 && r.getShort(3) == 2 && r.getLong(4) == 3L)
    assert(r.getFloat(5) == 1.5f && r.getDouble(6) == 2.25)
    assert(r.getDecimal(7, 10, 2) == Decimal(BigDecimal("12.34"), 10, 2))
    assert(r.getDecimal(8, 30, 5) == Decimal(BigDecimal("-12345678901234567890.12345"), 30, 5))
    assert(r.getUTF8String(9) == str("x") && r.getUTF8String(10) == str("ab  "))
    assert(r.getBinary(11).toSeq == Seq[Byte](-54, -2) && r.getInt(12) == 19723)
    assert(r.getLong(13) == -500000L && r.getLong(14) == 1704112200123456L)
    assert(r.getLong(15) == 1704112200123000L && r.getLong(16) == -1L)
    assert(r.getArray(17).numElements() == 2 && r.getArray(17).getInt(0) == 1 && r.getArray(17).isNullAt(1))
    assert(r.getMap(18).keyArray().getUTF8String(0) == str("a") && r.getMap(18).valueArray().isNullAt(0))
    assert(r.getMap(19).keyArray().getInt(0) == 7 && r.getMap(19).valueArray().getUTF8String(0) == str("seven"))
    assert(r.getStruct(20, 2).isNullAt(0) && r.getStruct(20, 2).getUTF8String(1) == str("y"))
    val n = rows(1)
    assert(n.getInt(0) == 2 && (1 until fields.size).forall(n.isNullAt))
  }

  test("a timestamp-millis column holds epoch milliseconds (floored), as Paimon writes it") {
    val path = write(Seq(full))
    val file = new DataFileReader[GenericRecord](new File(path), new GenericDatumReader[GenericRecord]())
    val rec = file.next()
    assert(rec.get("ts3") == -500L && rec.get("ltz3") == 1704112200123L && rec.get("ltz6") == -1L)
    assert(file.getMetaString("avro.codec") == "zstandard")
    file.close()
  }

  test("a read of some columns, in another order, skips the others") {
    val wanted = StructType(Seq(struct("st"), struct("id"), struct("mi")))
    val r = AvroDataFiles.read(write(Seq(full)), wanted, conf).next()
    assert(r.getStruct(0, 2).getUTF8String(1) == str("y") && r.getInt(1) == 1)
    assert(r.getMap(2).keyArray().getInt(0) == 7)
  }

  test("a requested column the file lacks is a damaged header, not a column of nulls") {
    val wanted = StructType(Seq(struct("id"), struct("s").copy(name = "absent")))
    val e = intercept[IOException](AvroDataFiles.read(write(Seq(full)), wanted, conf))
    assert(e.getMessage.startsWith("the file's Avro schema lacks the columns absent: "), e.getMessage)
  }

  test("codecs: avro.codec wins; zstd, snappy and none map to Avro's codecs; lz4 and gzip have none") {
    assert(AvroDataFiles.codec(FileCompression.Lz4, Some(AvroCodec.Deflate), 3) == AvroCodecChoice(AvroCodec.Deflate, 3))
    assert(AvroDataFiles.codec(FileCompression.Snappy, None, 1).codec == AvroCodec.Snappy)
    assert(AvroDataFiles.codec(FileCompression.None, None, 1).codec == AvroCodec.Null)
    val e = intercept[BadInputException](AvroDataFiles.codec(FileCompression.Lz4, None, 1))
    assert(e.getMessage.contains("file.compression 'lz4' has no Avro codec: use zstd, snappy or none, or set avro.codec"))
    val level = intercept[BadInputException](AvroDataFiles.codec(FileCompression.Gzip, None, 1, "file.compression.per.level"))
    assert(level.getMessage ===
      "file.compression.per.level 'gzip' has no Avro codec: use zstd, snappy or none, or set avro.codec")
  }

  test("timestamps of precision 7 to 9 have no Avro form") {
    val e = intercept[BadInputException](AvroDataSchema.of(Seq(DataField(0, "t", TimestampType(9)))))
    assert(e.getMessage.contains(
        "Type TIMESTAMP(9) cannot be stored in an Avro data file: Avro holds timestamps of precision up to 6"))
  }

  test("value stats of an Avro file are gathered from every row (Avro keeps none), as Paimon's Avro writer does") {
    val writers = DataFileWriters((p, _) => AvroDataFiles.writer(p, AvroDataFiles.writerSpec(fields, struct, codec), conf),
      new SerializableConfiguration(conf), struct, DataFileFormat.Avro)
    val stats = new ValueStats(StatsMode.Full, fields, writers)
    val c = stats.newCollector()
    Seq(full, nulls).foreach(c.update)
    val r = stats.complete(c, PathNames.of(write(Seq(full, nulls)))).result()
    assert(r.nullCounts.toSeq.take(3) == Seq[java.lang.Long](0L, 1L, 1L))
    assert(r.minValues.getInt(0) == 1 && r.maxValues.getInt(0) == 2 && r.minValues.getLong(14) == 1704112200123456L)
  }
}
