package lamina.table.manifest

import java.nio.file.Files

import scala.util.Random

import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables
import lamina.table.options.ManifestCompression

/** Truncated and bit-flipped manifest files are reported as corruption naming the file, never as a
 *  decoder's internal exception. */
class AvroFilesCorruptionTest extends AnyFunSuite with BeforeAndAfterAll {
  private val dir = TestTables.tempDir("avro-corruption")
  override def afterAll(): Unit = TestTables.deleteRecursively(dir)

  private val entries: Seq[ManifestEntry] = (0 until 20).map { i =>
    ManifestEntry(if (i % 5 == 4) ManifestEntry.Delete else ManifestEntry.Add, TestTables.stringPartition(s"p${i % 3}"),
      i % 4, 4, TestTables.file(s"data-$i-0.parquet", rows = i.toLong + 1))
  }

  private def encoded(codec: ManifestCompression): Array[Byte] = {
    val schema = ManifestEntry.AvroSchema
    AvroFiles.encode(schema, entries.iterator.map(_.toAvro(schema)), codec)
  }

  private def headerLength(bytes: Array[Byte]): Int = {
    val r = new org.apache.avro.file.DataFileReader[org.apache.avro.generic.GenericRecord](
      new org.apache.avro.file.SeekableByteArrayInput(bytes),
      new org.apache.avro.generic.GenericDatumReader[org.apache.avro.generic.GenericRecord]())
    try { r.sync(0); r.previousSync().toInt }
    finally r.close()
  }

  /** Reads `bytes` from a file; returns the records, or the CorruptFileException, failing on anything else. */
  private def readAs(bytes: Array[Byte], name: String): Either[CorruptFileException, Seq[ManifestEntry]] = {
    val p = dir.resolve(name)
    Files.write(p, bytes)
    val path = TestTables.hadoopPath(p)
    try Right(AvroFiles.read(TestTables.fileIO, path, ManifestEntry.fromAvro))
    catch {
      case e: CorruptFileException =>
        assert(e.path === path.toString)
        assert(e.getMessage.startsWith(s"Corrupt file $path at offset "), e.getMessage)
        Left(e)
    } finally Files.delete(p)
  }

  for (codec <- ManifestCompression.All) {
    test(s"every truncation of a $codec manifest is corruption, except exactly after the header") {
      val bytes = encoded(codec)
      val header = headerLength(bytes)
      assert(header > 4 && header < bytes.length)
      for (len <- 0 until bytes.length) {
        readAs(bytes.take(len), s"trunc-$codec-$len") match {
          case Left(_) =>
          case Right(records) =>
            // the container format has no footer: a cut at the first block boundary reads as empty
            assert(len === header, s"truncated to $len of ${bytes.length} bytes, read ${records.size} records")
            assert(records.isEmpty)
        }
      }
    }

    test(s"flipped bytes of a $codec manifest are corruption or decode (seeded)") {
      val bytes = encoded(codec)
      val rnd = new Random(7L + codec.hashCode)
      var detected = 0
      val positions = (0 until 4).toSeq ++ Seq.fill(150)(rnd.nextInt(bytes.length))
      for (pos <- positions) {
        val flipped = bytes.clone()
        flipped(pos) = (flipped(pos) ^ (1 << rnd.nextInt(8))).toByte
        if (readAs(flipped, s"flip-$codec-$pos").isLeft) detected += 1
      }
      assert(detected > 0)
    }
  }

  test("an empty file and a file of another format are corruption") {
    assert(readAs(Array.emptyByteArray, "empty").isLeft)
    assert(readAs("{\"not\": \"avro\"}".getBytes("UTF-8"), "json").isLeft)
    assert(readAs(Array[Byte]('O', 'b', 'j'), "magic-only").isLeft)
  }

  test("ManifestStore.readManifest reports the manifest's path") {
    val tmp = TestTables.tempDir("avro-corruption-store")
    try {
      val table = TestTables.createTable(tmp, TestTables.eventsSchema())
      val store = table.manifestStore
      val Seq(meta) = store.writeManifests(entries, 0L)
      val path = table.paths.manifestPath(meta.fileName)
      val local = java.nio.file.Paths.get(path.toUri)
      val bytes = Files.readAllBytes(local)
      Files.write(local, bytes.take(bytes.length / 2))
      // the bytes no longer match Hadoop's checksum file
      val e = intercept[CorruptFileException](store.readManifest(meta.fileName))
      assert(e.path === path.toString)
      assert(e.getMessage ===
        s"Corrupt file $path at offset ${e.offset}: expected bytes matching their checksum, found a mismatch")
      assert(e.getCause.isInstanceOf[org.apache.hadoop.fs.ChecksumException])
      // without a checksum file the Avro reader itself finds the cut
      Files.delete(local.resolveSibling(s".${meta.fileName}.crc"))
      val e2 = intercept[CorruptFileException](store.readManifest(meta.fileName))
      assert(e2.path === path.toString)
      assert(e2.getMessage.startsWith(s"Corrupt file $path at offset "))
    } finally TestTables.deleteRecursively(tmp)
  }
}
