package lamina.table.manifest

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.io.{FileIO, PathNames}
import lamina.table.options.ManifestCompression

class ManifestCacheTest extends AnyFunSuite {

  private val io = FileIO(new Configuration())

  test("a file is decoded once while it stays as read, and read again once it changed") {
    val dir = Files.createTempDirectory("manifest-cache")
    val path = PathNames.of(dir.resolve("manifest-1").toString)
    io.writeBytes(path, "first".getBytes)
    var decoded = 0
    def read() = ManifestCache.read(io, path, "test") {
      decoded += 1
      Seq(new String(io.readBytes(path)))
    }
    assert(read() == Seq("first") && read() == Seq("first"))
    assert(decoded == 1)
    // the same length, a later modification time: a damaged or replaced file is not the one cached
    Thread.sleep(5)
    io.writeBytes(path, "other".getBytes)
    assert(read() == Seq("other"))
    assert(decoded == 2)
    // another kind of decoding of the same file is its own entry
    assert(ManifestCache.read(io, path, "other kind")(Seq(1)) == Seq(1))
  }

  test("damage after a cached read is reported by the next read") {
    val dir = Files.createTempDirectory("manifest-cache")
    val path = PathNames.of(dir.resolve("manifest-2").toString)
    val schema = ManifestFileMeta.AvroSchema
    val meta = ManifestFileMeta("manifest-x", 10L, 1L, 0L, SimpleStats.Empty, 0L)
    AvroFiles.write(io, path, schema, Iterator(meta.toAvro(schema)), ManifestCompression.Zstd)
    def read() = ManifestCache.read(io, path, "manifest list")(AvroFiles.read(io, path, ManifestFileMeta.fromAvro))
    assert(read().map(_.fileName) == Seq("manifest-x"))
    val bytes = io.readBytes(path)
    Thread.sleep(5)
    io.writeBytes(path, bytes.take(bytes.length - 3))
    val e = intercept[CorruptFileException](read())
    assert(e.getMessage.contains(path.toString))
  }
}
