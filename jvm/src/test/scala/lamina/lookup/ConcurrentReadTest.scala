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

  test("scans, seeks and lookups on many threads while data block arrays are reused") {
    val entries = randomEntries(seed = 7, n = 20000, minKey = 12, maxKey = 12, minValue = 20, maxValue = 20)
    val expected = entries.map { case (k, v) => hex(k) + "=" + hex(v) }
    val configs = Seq(
      LookupOptions(cachePageSize = 2048, compression = CompressionType.None),
      LookupOptions(cachePageSize = 2048, compression = CompressionType.Lz4),
      LookupOptions(cachePageSize = 2048, localFileType = LocalFileType.Hash))
    for (options <- configs) withTempDir { dir =>
      // 32 KiB of data pages (about fifteen 2 KiB blocks) for 8 threads: arrays are reused constantly.
      val manager = new CacheManager(288 << 10, 8.0 / 9)
      val f = LookupStoreFactory.create(options, manager)
      val file = new File(dir, "shared")
      writeAll(f, file, entries)
      val reader = f.createReader(file)
      val scans = reader match {
        case s: lamina.lookup.sort.SortLookupStoreReader => Some(s)
        case _ => None // hash files have no order to scan: every thread looks up
      }
      val pool = Executors.newFixedThreadPool(8)
      try {
        val tasks = (0 until 8).map { t =>
          new Callable[Int] {
            override def call(): Int = {
              val rnd = new Random(t)
              var checked = 0
              (0 until 6).foreach { round =>
                if (t % 2 == 0 && scans.isDefined) {
                  val from = rnd.nextInt(entries.size)
                  val it = scans.get.iterator()
                  it.seek(entries(from)._1)
                  var i = from
                  while (it.hasNext) {
                    val (k, v) = it.next()
                    if (hex(k) + "=" + hex(v) != expected(i)) throw new AssertionError(s"scan from $from: entry $i wrong")
                    i += 1
                  }
                  if (i != entries.size) throw new AssertionError(s"scan from $from ended at $i")
                  checked += i - from
                } else (0 until 3000).foreach { _ =>
                  val i = rnd.nextInt(entries.size)
                  if (hex(reader.lookup(entries(i)._1)) != hex(entries(i)._2)) throw new AssertionError(s"lookup $i wrong")
                  checked += 1
                }
              }
              checked
            }
          }
        }
        pool.invokeAll(tasks.asJava).asScala.foreach(_.get())
      } finally {
        pool.shutdown()
        assert(pool.awaitTermination(1, TimeUnit.MINUTES))
        reader.close()
      }
      assert(manager.bufferPool.reuseCount > 1000,
        s"${options.localFileType}: arrays reused ${manager.bufferPool.reuseCount} times")
      assert(manager.dataPoolUsedBytes == 0)
    }
  }
}
