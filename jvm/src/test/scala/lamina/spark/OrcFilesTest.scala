package lamina.spark

import java.nio.file.Files
import java.time.{LocalDateTime, ZoneOffset}
import java.util.TimeZone

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hive.ql.exec.vector.{LongColumnVector, TimestampColumnVector}
import org.apache.orc.{OrcFile, TypeDescription}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import lamina.types.SparkTypes

class OrcFilesTest extends AnyFunSuite {
  private val conf = new Configuration()

  private def field(name: String, t: DataType, id: Int, declared: String = null): StructField = {
    val md = new MetadataBuilder().putLong(SparkTypes.FieldIdKey, id.toLong)
    if (declared != null) md.putString(SparkTypes.CharVarcharKey, declared)
    StructField(name, t, nullable = true, md.build())
  }

  private val schema = StructType(Seq(
      field("id", IntegerType, 0),
      field("ltz", TimestampType, 1),
      field("ntz", TimestampNTZType, 2),
      field("c", StringType, 3, "char(5)"),
      field("v", StringType, 4, "varchar(10)"),
      field("s", StructType(Seq(field("w", TimestampNTZType, 6))), 5),
      field("a", ArrayType(TimestampNTZType), 7)))

  // 2024-03-10 02:30 does not exist in Los Angeles (the clocks jump an hour that night)
  private val wallClock = LocalDateTime.of(2024, 3, 10, 2, 30, 0, 123456000)
  private val ntzMicros = wallClock.toEpochSecond(ZoneOffset.UTC) * 1000000L + 123456L
  private val ltzMicros = 1704112200123456L

  private def row(id: Int): InternalRow = {
    InternalRow(id, ltzMicros, ntzMicros, UTF8String.fromString("ab"), UTF8String.fromString("xyz"),
      InternalRow(ntzMicros), new org.apache.spark.sql.catalyst.util.GenericArrayData(Array[Any](ntzMicros)))
  }

  private def inZone[T](zone: String)(body: => T): T = {
    val before = TimeZone.getDefault
    TimeZone.setDefault(TimeZone.getTimeZone(zone))
    try body
    finally TimeZone.setDefault(before)
  }

  private def tempFile(): String = {
    val dir = Files.createTempDirectory("orc-files")
    dir.resolve("data.orc").toString
  }

  test("the ORC schema is Paimon's: timestamp with local time zone, timestamp, char(n), varchar(n), field ids") {
    val td = OrcFiles.orcSchema(schema)
    assert(td.toString ==
      "struct<id:int,ltz:timestamp with local time zone,ntz:timestamp,c:char(5),v:varchar(10)," +
      "s:struct<w:timestamp>,a:array<timestamp>>")
    assert(td.getChildren.get(1).getAttributeValue(OrcFiles.FieldIdAttribute) == "1")
    assert(td.getChildren.get(5).getChildren.get(0).getAttributeValue(OrcFiles.FieldIdAttribute) == "6")
  }

  for (zone <- Seq("UTC", "America/Los_Angeles", "Asia/Kolkata")) {
    test(s"timestamps written and read in a JVM in $zone keep their values; CHAR comes back padded") {
      val path = tempFile()
      inZone(zone) {
        val w = OrcFiles.writer(path, schema, conf)
        w.write(row(1))
        w.close()
        val read = OrcFiles.read(path, schema, conf).map(_.copy()).toList
        assert(read.size == 1)
        val r = read.head
        assert(r.getLong(1) == ltzMicros)
        assert(r.getLong(2) == ntzMicros)
        assert(r.getUTF8String(3).toString == "ab   ")
        assert(r.getUTF8String(4).toString == "xyz")
        assert(r.getStruct(5, 1).getLong(0) == ntzMicros)
        assert(r.getArray(6).getLong(0) == ntzMicros)
      }
      // what Paimon's reader sees: the wall clock in the ORC timestamp, the instant in the other
      val reader = OrcFile.createReader(new Path(path), OrcFile.readerOptions(conf).useUTCTimestamp(true))
      val rows = reader.rows()
      val batch = reader.getSchema.createRowBatch()
      assert(rows.nextBatch(batch))
      val ntz = batch.cols(2).asInstanceOf[TimestampColumnVector]
      assert(LocalDateTime.ofEpochSecond(Math.floorDiv(ntz.time(0), 1000L), ntz.nanos(0), ZoneOffset.UTC) == wallClock)
      val ltz = batch.cols(1).asInstanceOf[TimestampColumnVector]
      assert(ltz.time(0) * 1000L + (ltz.nanos(0) / 1000) % 1000 == ltzMicros)
      rows.close()
    }
  }

  test("a column missing from the file reads as null; columns are found by name") {
    val path = tempFile()
    val w = OrcFiles.writer(path, schema, conf)
    w.write(row(7))
    w.close()
    val wanted = StructType(Seq(field("v", StringType, 4), field("gone", LongType, 9), field("id", IntegerType, 0)))
    val r = OrcFiles.read(path, wanted, conf).next()
    assert(r.getUTF8String(0).toString == "xyz")
    assert(r.isNullAt(1))
    assert(r.getInt(2) == 7)
  }

  test("files in Spark's ORC conventions (bigint TIMESTAMP_NTZ, zoned timestamp) read as Spark wrote them") {
    val path = tempFile()
    inZone("America/Los_Angeles") {
      val td = TypeDescription.fromString("struct<ltz:timestamp,ntz:bigint>")
      td.getChildren.get(0).setAttribute("spark.sql.catalyst.type", "timestamp")
      td.getChildren.get(1).setAttribute("spark.sql.catalyst.type", "timestamp_ntz")
      val file = OrcFile.createWriter(new Path(path), OrcFile.writerOptions(conf).setSchema(td))
      val batch = td.createRowBatch()
      batch.cols(0).asInstanceOf[TimestampColumnVector].set(0, new java.sql.Timestamp(ltzMicros / 1000))
      batch.cols(1).asInstanceOf[LongColumnVector].vector(0) = ntzMicros
      batch.size = 1
      file.addRowBatch(batch)
      file.close()
      val wanted = StructType(Seq(field("ltz", TimestampType, 1), field("ntz", TimestampNTZType, 2)))
      val r = OrcFiles.read(path, wanted, conf).next()
      assert(r.getLong(0) == ltzMicros / 1000 * 1000)
      assert(r.getLong(1) == ntzMicros)
    }
  }
}
