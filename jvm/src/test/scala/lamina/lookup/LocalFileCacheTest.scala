package lamina.lookup

import java.util.concurrent.atomic.AtomicInteger

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException

class LocalFileCacheTest extends AnyFunSuite with LookupTestSupport {
  private val options = LookupOptions()

  private def build(n: Int, built: AtomicInteger)(w: LookupStoreWriter): Unit = {
    built.incrementAndGet()
    (0 until n).foreach(i => w.put(f"key-$i%05d".getBytes, Array[Byte](i.toByte)))
  }

  test("a file is built once and reused while cached; readers answer from it") {
    withTempDir { dir =>
      val built = new AtomicInteger()
      val id = s"${dir.getPath}/reuse"
      val before = LocalFileCache.stats
      val a = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built))
      val b = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built))
      assert((a eq b) && built.get() === 1)
      assert(a.reader.lookup("key-00042".getBytes).toSeq === Seq(42.toByte))
      assert(a.reader.lookup("key-99999".getBytes) == null)
      LocalFileCache.release(a, Long.MaxValue)
      LocalFileCache.release(b, Long.MaxValue)
      val after = LocalFileCache.stats
      assert(after.built - before.built === 1 && after.reused - before.reused === 1)
      assert(a.file.isFile)
      LocalFileCache.clear()
      assert(!a.file.exists())
    }
  }

  test("files past their retention, or beyond the disk budget, go once no task uses them") {
    withTempDir { dir =>
      val built = new AtomicInteger()
      val old = LocalFileCache.acquire(s"${dir.getPath}/old", dir, options, 10, 0L)(build(10, built))
      Thread.sleep(5)
      LocalFileCache.release(old, Long.MaxValue)
      assert(!old.file.exists()) // retention 0: removed at its release
      val x = LocalFileCache.acquire(s"${dir.getPath}/x", dir, options, 500, 3600000L)(build(500, built))
      val y = LocalFileCache.acquire(s"${dir.getPath}/y", dir, options, 500, 3600000L)(build(500, built))
      LocalFileCache.release(x, 1L) // y is in use: only x can go
      assert(!x.file.exists() && y.file.exists())
      assert(y.reader.lookup("key-00001".getBytes) != null)
      LocalFileCache.release(y, 1L)
      assert(!y.file.exists())
    }
  }

  test("a failed build leaves no file and no entry") {
    withTempDir { dir =>
      val id = s"${dir.getPath}/fails"
      intercept[IllegalStateException](LocalFileCache.acquire(id, dir, options, 10, 3600000L)(_ =>
          throw new IllegalStateException("boom")))
      assert(dir.listFiles().isEmpty)
      val built = new AtomicInteger()
      val e = LocalFileCache.acquire(id, dir, options, 10, 3600000L)(build(3, built))
      assert(built.get() === 1)
      LocalFileCache.release(e, -1L)
      LocalFileCache.clear()
    }
  }

  /** Flips a byte of `file`'s first data block, keeping its size and, `keepTime`, its modification time. */
  private def damage(file: java.io.File, keepTime: Boolean): Unit = {
    val time = file.lastModified()
    val bytes = java.nio.file.Files.readAllBytes(file.toPath)
    bytes(0) = (bytes(0) ^ 0x40).toByte
    java.nio.file.Files.write(file.toPath, bytes)
    file.setLastModified(if (keepTime) time else time + 2000)
  }

  test("a file changed on disk since it was built is built again, not reused") {
    withTempDir { dir =>
      val built = new AtomicInteger()
      val id = s"${dir.getPath}/changed"
      val a = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built))
      LocalFileCache.release(a, Long.MaxValue)
      damage(a.file, keepTime = false)
      val before = LocalFileCache.stats
      val b = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built))
      assert((b ne a) && built.get() === 2 && LocalFileCache.stats.rebuilt - before.rebuilt === 1)
      assert(!a.file.exists() && b.reader.lookup("key-00000".getBytes).toSeq === Seq(0.toByte))
      LocalFileCache.release(b, Long.MaxValue)
    }
  }

  test("a file its reader finds damaged is rebuilt from its source; the damaged one goes when released") {
    withTempDir { dir =>
      val built = new AtomicInteger()
      val id = s"${dir.getPath}/damaged"
      val a = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built))
      val other = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built)) // another task's
      damage(a.file, keepTime = true)
      val e = intercept[CorruptFileException](a.reader.lookup("key-00000".getBytes))
      assert(e.path === a.file.getAbsolutePath && e.offset === 0L)
      val before = LocalFileCache.stats
      val b = LocalFileCache.rebuild(a)
      assert((b ne a) && built.get() === 2 && LocalFileCache.stats.rebuilt - before.rebuilt === 1)
      assert(b.reader.lookup("key-00000".getBytes).toSeq === Seq(0.toByte))
      assert(a.file.exists()) // the other task still holds it
      assert((LocalFileCache.rebuild(other) eq b) && built.get() === 2) // dropped already: the new file
      assert(!a.file.exists())
      LocalFileCache.release(b, Long.MaxValue)
      LocalFileCache.release(b, Long.MaxValue)
    }
  }

  test("readRebuilding: a read that finds the file damaged reads the file built again; damaged twice, it fails") {
    withTempDir { dir =>
      val built = new AtomicInteger()
      val id = s"${dir.getPath}/read"
      val a = LocalFileCache.acquire(id, dir, options, 100, 3600000L)(build(100, built))
      damage(a.file, keepTime = true)
      var held = a
      val value = LocalFileCache.readRebuilding(a, held = _)(_.reader.lookup("key-00007".getBytes).toSeq)
      assert(value === Seq(7.toByte) && (held ne a) && built.get() === 2 && !a.file.exists())
      val b = held
      val e = intercept[CorruptFileException](LocalFileCache.readRebuilding(b, held = _) { h =>
        throw new CorruptFileException(h.file.getPath, 0L, "x", "y")
      })
      assert(built.get() === 3 && (held ne b) && e.path === held.file.getPath && !b.file.exists())
      LocalFileCache.release(held, Long.MaxValue)
      LocalFileCache.clear()
      assert(!held.file.exists())
    }
  }
}
