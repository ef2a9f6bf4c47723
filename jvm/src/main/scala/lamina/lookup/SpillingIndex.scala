package lamina.lookup

import java.io.{Closeable, File}
import java.nio.file.Files

import scala.collection.mutable.ArrayBuffer
import scala.util.hashing.MurmurHash3

import lamina.lookup.cache.CacheManager

/** A mutable map of byte keys to byte values that spills to local sort lookup files: puts go to an
 *  in-memory table; once it holds about `memoryBytes`, it is written, sorted, as one sort lookup file
 *  (a run) in `dir` and emptied. A get asks the memory table, then the runs newest first (each run's
 *  bloom filter skips most of them). Invariant: a key's newest value is in the memory table or in the
 *  newest run holding the key. Not thread-safe; `close` removes every file. */
final class SpillingIndex(dir: File, options: LookupOptions, cacheManager: CacheManager, memoryBytes: Long) extends Closeable {
  require(memoryBytes > 0, s"memoryBytes must be positive, got $memoryBytes")

  private val factory = LookupStoreFactory.create(options.copy(localFileType = LocalFileType.Sort), cacheManager)
  private val memory = new java.util.HashMap[SpillingIndex.Key, Array[Byte]]()
  private var memoryUsed = 0L
  private val runs = ArrayBuffer.empty[(File, LookupStoreReader)]
  private var runDir: File = _

  /** The bytes an entry of the memory table is counted for: its key and value and the map's own
   *  objects (entry, buffer, two array headers). */
  private def footprint(key: Array[Byte], value: Array[Byte]): Long = key.length + value.length + SpillingIndex.EntryOverhead

  def put(key: Array[Byte], value: Array[Byte]): Unit = {
    val old = memory.put(new SpillingIndex.Key(key), value)
    memoryUsed += (if (old == null) footprint(key, value) else value.length - old.length)
    if (memoryUsed >= memoryBytes) spill()
  }

  /** The newest value of `key`, or null. */
  def get(key: Array[Byte]): Array[Byte] = {
    val v = memory.get(new SpillingIndex.Key(key))
    if (v != null) return v
    var i = runs.length - 1
    while (i >= 0) {
      val found = runs(i)._2.lookup(key)
      if (found != null) return found
      i -= 1
    }
    null
  }

  /** Runs written to disk so far. */
  def spilledRuns: Int = runs.length

  /** Writes the memory table as a new run and empties it. */
  def spill(): Unit = {
    if (memory.isEmpty) return
    if (runDir == null) {
      dir.mkdirs()
      runDir = Files.createTempDirectory(dir.toPath, "key-index-").toFile
    }
    val keys = memory.keySet().toArray(new Array[SpillingIndex.Key](0))
    java.util.Arrays.sort(keys, (a: SpillingIndex.Key, b: SpillingIndex.Key) => UnsignedBytesComparator.compare(a.bytes, b.bytes))
    val file = new File(runDir, s"run-${runs.length}.lkp")
    val writer = factory.createWriter(file, keys.length.toLong)
    try keys.foreach(k => writer.put(k.bytes, memory.get(k)))
    finally writer.close()
    runs += file -> factory.createReader(file)
    memory.clear()
    memoryUsed = 0L
  }

  override def close(): Unit = {
    runs.foreach { case (f, r) => r.close(); f.delete() }
    runs.clear()
    memory.clear()
    if (runDir != null) runDir.delete()
  }
}

object SpillingIndex {

  /** Bytes a memory-table entry costs beyond its key and value: a hash map node, a [[Key]] and two
   *  array headers, about 96 bytes on a 64-bit JVM. */
  val EntryOverhead: Long = 96L

  /** A key of the memory table, hashed by MurmurHash3 of its bytes: the keys are binary rows, mostly
   *  zero bytes and null bits, whose polynomial hash (`ByteBuffer`'s, `Arrays.hashCode`) collides so
   *  often that the map's bins turn into trees. */
  final class Key(val bytes: Array[Byte]) {
    override val hashCode: Int = MurmurHash3.bytesHash(bytes)
    override def equals(other: Any): Boolean = other match {
      case k: Key => java.util.Arrays.equals(bytes, k.bytes)
      case _ => false
    }
  }
}
