package lamina.lookup

import java.util.concurrent.atomic.AtomicInteger

import org.scalatest.funsuite.AnyFunSuite

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
}
