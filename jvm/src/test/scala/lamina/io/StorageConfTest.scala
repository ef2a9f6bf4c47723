package lamina.io

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

/** [[StorageConf]] and [[AtomicCreate]]: Paimon's storage options become S3A's settings, local files get
 *  no `.crc` side files, and each file system gets its way of creating a file only where none exists. */
class StorageConfTest extends AnyFunSuite {

  test("s3., s3a. and fs.s3a. options set fs.s3a. keys; dashed keys also set S3A's dotted names; hadoop. sets the key") {
    val conf = StorageConf(new Configuration(false),
      Map(
        "s3.endpoint" -> "http://127.0.0.1:9000",
        "s3.access-key" -> "ak",
        "S3.Secret-Key" -> "sk",
        "s3a.path.style.access" -> "true",
        "fs.s3a.connection.maximum" -> "7",
        "hadoop.io.file.buffer.size" -> "8192",
        "lock.enabled" -> "true"))
    assert(conf.get("fs.s3a.endpoint") === "http://127.0.0.1:9000")
    assert(conf.get("fs.s3a.access-key") === "ak" && conf.get("fs.s3a.access.key") === "ak")
    assert(conf.get("fs.s3a.secret.key") === "sk")
    assert(conf.get("fs.s3a.path.style.access") === "true")
    assert(conf.get("fs.s3a.connection.maximum") === "7")
    assert(conf.get("io.file.buffer.size") === "8192")
    assert(conf.get("fs.s3a.lock.enabled") === null && conf.get("lock.enabled") === null)
    assert(conf.get("fs.s3.impl") === "org.apache.hadoop.fs.s3a.S3AFileSystem")
    assert(conf.get("fs.s3a.classloader.isolation") === "false")
  }

  test("what the session configured already is kept") {
    val base = new Configuration(false)
    base.set("fs.s3.impl", "com.example.S3")
    base.set("fs.s3a.classloader.isolation", "true")
    val conf = StorageConf(base)
    assert(conf.get("fs.s3.impl") === "com.example.S3" && conf.get("fs.s3a.classloader.isolation") === "true")
  }

  test("storage options are told from other catalog options") {
    Seq("s3.endpoint", "s3a.x", "fs.s3a.x", "hadoop.x").foreach(k => assert(StorageConf.isStorageOption(k), k))
    Seq("s3.", "hadoop.", "lock.enabled", "s3endpoint", "uri").foreach(k => assert(!StorageConf.isStorageOption(k), k))
  }

  test("local files: hard links, no .crc side files, and the file system is a LocalFileSystem (S3A's buffers need one)") {
    val dir = Files.createTempDirectory("storage-conf")
    val io = FileIO(StorageConf(new Configuration()))
    val path = PathNames.of(dir.resolve("snapshot-1").toUri.toString)
    assert(io.atomicCreate(path) === AtomicCreate.HardLink)
    assert(io.tryAtomicCreate(path, "one"))
    assert(!io.tryAtomicCreate(path, "two"))
    assert(io.readUtf8(path) === "one")
    assert(io.fileExists(path) && !io.fileExists(PathNames.of(dir.resolve("snapshot-2").toUri.toString)))
    io.writeBytes(PathNames.of(dir.resolve("data").toUri.toString), Array[Byte](1, 2))
    assert(Files.list(dir).toArray.map(_.toString).forall(n => !n.endsWith(".crc")))
    assert(org.apache.hadoop.fs.FileSystem.getLocal(io.hadoopConf).isInstanceOf[NoChecksumLocalFileSystem])
    assert(AtomicCreate.HardLink.safeWithoutLock && !AtomicCreate.CheckThenPut.safeWithoutLock)
  }
}
