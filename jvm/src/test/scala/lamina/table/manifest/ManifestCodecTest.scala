package lamina.table.manifest

import java.nio.file.Files

import org.apache.avro.Schema
import org.apache.avro.file.{DataFileReader, SeekableByteArrayInput}
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.format.BinaryRowCodec
import lamina.table.TestTables
import lamina.table.options.ManifestCompression
import lamina.types._

/** Avro round trips of every manifest record type through [[AvroFiles]], for every codec. */
class ManifestCodecTest extends AnyFunSuite with BeforeAndAfterAll {
  import ManifestCodecTest._

  private val dir = TestTables.tempDir("manifest-codec")
  override def afterAll(): Unit = TestTables.deleteRecursively(dir)

  private val fileSchema: Schema = new Schema.Parser().parse(DataFileMeta.AvroSchemaJson)

  private val codecs = Seq(ManifestCompression.Zstd -> "zstandard", ManifestCompression.Deflate -> "deflate",
    ManifestCompression.Snappy -> "snappy", ManifestCompression.Null -> "null")

  private def roundTrip(schema: Schema, records: Seq[GenericRecord], codec: ManifestCompression): Seq[GenericRecord] = {
    val path = TestTables.hadoopPath(dir.resolve(s"f-${System.nanoTime()}"))
    val size = AvroFiles.write(TestTables.fileIO, path, schema, records.iterator, codec)
    assert(size === Files.size(java.nio.file.Paths.get(path.toUri)))
    AvroFiles.read(TestTables.fileIO, path)
  }

  private val stats = SimpleStats(
    BinaryRowCodec.serialize(InternalRow(1, UTF8String.fromString("a")), Seq(IntType(), VarCharType.string())),
    BinaryRowCodec.serialize(InternalRow(9, null), Seq(IntType(), VarCharType.string())),
    Seq(Some(0L), None))

  private val fullFile = DataFileMeta(
    fileName = "data-1-0.parquet", fileSize = 12345L, rowCount = 100L,
    minKey = BinaryRowCodec.serialize(InternalRow(1L), Seq(BigIntType())),
    maxKey = BinaryRowCodec.serialize(InternalRow(99L), Seq(BigIntType())),
    keyStats = stats, valueStats = stats, minSequenceNumber = 5L, maxSequenceNumber = 104L, schemaId = 2L,
    level = 3, extraFiles = Seq("data-1-0.parquet.index"), creationTimeMillis = Some(1795306625877L),
    deleteRowCount = Some(7L), embeddedIndex = Some(Array[Byte](1, 2, 3)), fileSource = Some(DataFileMeta.FileSourceCompact),
    valueStatsCols = Some(Seq("id", "v")), externalPath = Some("file:/elsewhere/data-1-0.parquet"))

  private val bareFile = fullFile.copy(extraFiles = Nil, creationTimeMillis = None, deleteRowCount = None,
    embeddedIndex = None, fileSource = None, valueStatsCols = None, externalPath = None, keyStats = SimpleStats.Empty)

  for ((codec, avroName) <- codecs) {
    test(s"SimpleStats round trip ($codec), null counts with unknown entries and without any") {
      val schema = fileSchema.getField("_VALUE_STATS").schema()
      for (s <- Seq(stats, SimpleStats.Empty, stats.copy(nullCounts = Seq(Some(Long.MaxValue), Some(0L))))) {
        val back = roundTrip(schema, Seq(s.toAvro(schema)), codec).map(SimpleStats.fromAvro)
        assert(canon(back) === canon(Seq(s)))
      }
    }

    test(s"DataFileMeta round trip ($codec), every optional field set and none") {
      val schema = fileSchema
      val back = roundTrip(schema, Seq(fullFile, bareFile).map(_.toAvro(schema)), codec).map(DataFileMeta.fromAvro)
      assert(canon(back) === canon(Seq(fullFile, bareFile)))
      assert(back.head.fileFormat === "parquet")
    }

    test(s"ManifestEntry round trip ($codec), ADD and DELETE") {
      val schema = ManifestEntry.AvroSchema
      val part = TestTables.stringPartition("2024-01-01")
      val entries = Seq(ManifestEntry(ManifestEntry.Add, part, 3, 8, fullFile),
        ManifestEntry(ManifestEntry.Delete, TestTables.stringPartition(null), 0, -1, bareFile))
      val records = roundTrip(schema, entries.map(_.toAvro(schema)), codec)
      assert(records.map(_.get("_VERSION")) === Seq(2, 2))
      assert(canon(records.map(ManifestEntry.fromAvro)) === canon(entries))
    }

    test(s"ManifestFileMeta round trip ($codec) and the codec name in the file header") {
      val schema = ManifestFileMeta.AvroSchema
      val metas = Seq(
        ManifestFileMeta("manifest-a-0", 2048L, 3L, 1L, stats, 4L, Some(0), Some(7), Some(0), Some(5)),
        ManifestFileMeta("manifest-b-0", 1L, 0L, 0L, SimpleStats.Empty, 0L))
      assert(canon(roundTrip(schema, metas.map(_.toAvro(schema)), codec).map(ManifestFileMeta.fromAvro)) === canon(metas))
      val bytes = AvroFiles.encode(schema, metas.iterator.map(_.toAvro(schema)), codec)
      assert(bytes.take(4).toSeq === Seq[Byte]('O', 'b', 'j', 1))
      val r = new DataFileReader[GenericRecord](new SeekableByteArrayInput(bytes), new GenericDatumReader[GenericRecord]())
      try assert(r.getMetaString("avro.codec") === avroName)
      finally r.close()
    }
  }

  test("an empty record list is a valid file with no records") {
    val schema = ManifestEntry.AvroSchema
    assert(roundTrip(schema, Nil, ManifestCompression.Zstd) === Nil)
  }
}

object ManifestCodecTest {

  /** A structurally comparable form of manifest values (byte arrays compare by content). */
  def canon(x: Any): Any = x match {
    case a: Array[Byte] => a.toSeq
    case o: Option[_] => o.map(canon)
    case s: Seq[_] => s.map(canon)
    case p: Product => (p.productPrefix, p.productIterator.map(canon).toList)
    case other => other
  }
}
