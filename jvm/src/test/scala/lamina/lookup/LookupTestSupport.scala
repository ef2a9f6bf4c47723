package lamina.lookup

import java.io.File
import java.nio.file.Files

import scala.util.Random

import lamina.lookup.cache.CacheManager

/** Fixtures shared by lookup store tests: temporary files and seeded key-value sets. */
trait LookupTestSupport {

  def withTempDir[T](f: File => T): T = {
    val dir = Files.createTempDirectory("lamina-lookup-test").toFile
    try f(dir)
    finally deleteRecursively(dir)
  }

  private def deleteRecursively(f: File): Unit = {
    Option(f.listFiles()).foreach(_.foreach(deleteRecursively))
    f.delete()
  }

  def newCache(bytes: Long = 64L << 20, ratio: Double = 0.25): CacheManager = new CacheManager(bytes, ratio)

  /** `n` distinct random keys of lengths in [minKey, maxKey], sorted unsigned, each with a random value
   *  of length in [minValue, maxValue]. */
  def randomEntries(
      seed: Long, n: Int, minKey: Int, maxKey: Int, minValue: Int, maxValue: Int): IndexedSeq[(Array[Byte], Array[Byte])] = {
    val rnd = new Random(seed)
    val seen = scala.collection.mutable.HashSet.empty[Seq[Byte]]
    val keys = scala.collection.mutable.ArrayBuffer.empty[Array[Byte]]
    while (keys.size < n) {
      val k = new Array[Byte](minKey + rnd.nextInt(maxKey - minKey + 1))
      rnd.nextBytes(k)
      if (seen.add(k.toSeq)) keys += k
    }
    keys.sortWith((a, b) => UnsignedBytesComparator.compare(a, b) < 0).toIndexedSeq.map { k =>
      val v = new Array[Byte](minValue + rnd.nextInt(maxValue - minValue + 1))
      rnd.nextBytes(v)
      (k, v)
    }
  }

  def writeAll(factory: LookupStoreFactory, file: File, entries: Seq[(Array[Byte], Array[Byte])]): Long = {
    val w = factory.createWriter(file, entries.size.toLong)
    entries.foreach { case (k, v) => w.put(k, v) }
    w.finish()
  }

  def hex(b: Array[Byte]): String = if (b == null) "null" else b.map(x => f"${x & 0xff}%02x").mkString
}
