package lamina.lookup

import java.io.File
import java.util.concurrent.{Callable, Executors, TimeUnit}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.lookup.cache.CacheManager
import lamina.lookup.compression.CompressionType

class ConcurrentReadTest extends AnyFunSuite with LookupTestSupport {

  test("many threads read several files through one small shared cache manager") {
    val entries = randomEntries(seed = 99, n = 20000, minKey = 8, maxKey = 16, minValue = 0, maxValue = 64)
    val manager = new CacheManager(128 * 1024, 0.25)
    withTempDir { dir =>
      val configs = Seq(
        LookupOptions(cachePageSize = 2048, compression = CompressionType.Zstd),
        LookupOptions(cachePageSize = 1024, compression = CompressionType.None, bloomFilterEnabled = false),
        LookupOptions(cachePageSize = 4096, localFileType = LocalFileType.Hash))
      val readers = configs.zipWithIndex.map { case (o, i) =>
        val f = LookupStoreFactory.create(o, manager)
        val file = new File(dir, s"file-$i")
        writeAll(f, file, entries)
        f.createReader(file)
      }
      val pool = Executors.newFixedThreadPool(8)
      try {
        val tasks = (0 until 16).map { t =>
          new Callable[Int] {
            override def call(): Int = {
              val rnd = new Random(1000 + t)
              var checked = 0
              (0 until 3000).foreach { _ =>
                val (k, v) = entries(rnd.nextInt(entries.size))
                val r = readers(rnd.nextInt(readers.size))
                if (hex(r.lookup(k)) != hex(v)) throw new AssertionError(s"wrong value for ${hex(k)}")
                val miss = k ++ Array[Byte](0x55)
                if (r.lookup(miss) != null && !entries.exists(_._1.sameElements(miss)))
                  throw new AssertionError(s"phantom value for ${hex(miss)}")
                checked += 1
              }
              checked
            }
          }
        }
        val results = pool.invokeAll(tasks.asJava).asScala.map(_.get())
        assert(results.sum == 16 * 3000)
      } finally {
        pool.shutdown()
        assert(pool.awaitTermination(1, TimeUnit.MINUTES))
      }
      assert(manager.dataPoolUsedBytes <= manager.dataPoolBytes)
      assert(manager.indexPoolUsedBytes <= manager.indexPoolBytes)
      assert(manager.loadCount > 0)
      readers.foreach(_.close())
      assert(manager.dataPoolUsedBytes == 0 && manager.indexPoolUsedBytes == 0)
    }
  }
}
