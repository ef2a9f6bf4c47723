package lamina.table.manifest

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.avro.file.{DataFileReader, SeekableByteArrayInput}
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

import lamina.dv.{DeletionVectorRange, DeletionVectorsIndexFile, PaimonDvFixtures}
import lamina.errors.CorruptFileException
import lamina.table.TestTables
import lamina.table.options.ManifestCompression

class IndexManifestEntryTest extends AnyFunSuite {
  private val manifest = PaimonDvFixtures.file("index-manifest")
  private val fileIO = TestTables.fileIO

  private val Bucket0 = IndexManifestEntry(ManifestEntry.Add, new Array[Byte](12), 0,
    IndexFileMeta(DeletionVectorsIndexFile.IndexType, "index-41ce9bd5-c582-4920-8a95-779ce6c9e963-0", 35, 1,
      Some(Seq(DeletionVectorRange("data-a8426581-28f2-4ea3-a6af-a1aa5dfc5134-0.parquet", 1, 26, Some(3L)))), None))
  private val Bucket1 = IndexManifestEntry(ManifestEntry.Add, new Array[Byte](12), 1,
    IndexFileMeta(DeletionVectorsIndexFile.IndexType, "index-41ce9bd5-c582-4920-8a95-779ce6c9e963-1", 78, 2,
      Some(PaimonDvFixtures.Bitmap32Ranges), None))

  private def comparable(e: IndexManifestEntry) = e.copy(partition = null) -> e.partition.toSeq

  test("reads the index manifest Paimon 1.4 wrote") {
    val entries = AvroFiles.read(fileIO, new Path(manifest.toURI), IndexManifestEntry.fromAvro)
    assert(entries.map(comparable) === Seq(Bucket0, Bucket1).map(comparable))
  }

  test("writes Paimon's schema: the same fields, names and types in the same order") {
    val bytes = Files.readAllBytes(manifest.toPath)
    val paimon = new DataFileReader[GenericRecord](new SeekableByteArrayInput(bytes), new GenericDatumReader[GenericRecord]())
    val theirs = paimon.getSchema
    paimon.close()
    def shape(s: org.apache.avro.Schema): String = s.getType match {
      case org.apache.avro.Schema.Type.RECORD =>
        s.getFields.asScala.map(f => s"${f.name}:${shape(f.schema)}").mkString("{", ",", "}")
      case org.apache.avro.Schema.Type.UNION => s.getTypes.asScala.map(shape).mkString("[", "|", "]")
      case org.apache.avro.Schema.Type.ARRAY => s"array<${shape(s.getElementType)}>"
      case t => t.getName
    }
    assert(shape(IndexManifestEntry.AvroSchema) === shape(theirs))
  }

  test("what it writes reads back the same, with or without ranges, cardinality and external path") {
    val dir = TestTables.tempDir("index-manifest")
    try {
      val more = IndexManifestEntry(ManifestEntry.Add, Array[Byte](1, 2, 3), 7,
        IndexFileMeta("HASH", "index-x-0", 10, 4, None, Some("s3a://b/index-x-0")))
      val old = Bucket1.copy(indexFile = Bucket1.indexFile.copy(dvRanges = Some(Seq(DeletionVectorRange("d", 1, 5, None)))))
      val path = new Path(dir.toUri.toString, "index-manifest-1")
      val entries = Seq(Bucket0, old, more)
      AvroFiles.write(fileIO, path, IndexManifestEntry.AvroSchema,
        entries.iterator.map(_.toAvro(IndexManifestEntry.AvroSchema)), ManifestCompression.Zstd)
      assert(AvroFiles.read(fileIO, path, IndexManifestEntry.fromAvro).map(comparable) === entries.map(comparable))
    } finally TestTables.deleteRecursively(dir)
  }

  // Paimon writes zstd blocks without a checksum: a flipped byte in a literal may decode to another
  // name or number, which planning and the vector's own checks refuse (SnapshotDeletionFilesTest)
  test("a damaged index manifest mostly fails to decode, naming the file") {
    val dir = TestTables.tempDir("index-manifest")
    try {
      val good = Files.readAllBytes(manifest.toPath)
      val failures = good.indices.count { i =>
        val bad = good.clone()
        bad(i) = (bad(i) ^ 0x04).toByte
        val p = dir.resolve(s"m-$i")
        Files.write(p, bad)
        try { AvroFiles.read(fileIO, new Path(p.toUri), IndexManifestEntry.fromAvro); false }
        catch { case e: CorruptFileException => assert(e.path.endsWith(s"m-$i")); true }
      }
      assert(failures > good.length / 2)
    } finally TestTables.deleteRecursively(dir)
  }
}
