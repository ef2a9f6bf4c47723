package lamina.lookup

import java.io.File
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.jdk.CollectionConverters._

import lamina.lookup.cache.CacheManager

/** The local lookup files of one JVM (a Spark executor), shared by all its tasks: each built once
 *  from its source (a remote data file) and kept on local disk, so that the next compaction task on
 *  this JVM that looks into the same data file reuses it.
 *
 *  Invariants: one file per id, built at most once while it is cached (tasks that ask for an id being
 *  built wait for it); a file in use (acquired and not released) is never removed; after a release,
 *  files unused for longer than their retention are removed, then the least recently used until the
 *  files add up to at most the disk budget. Blocks read from the files go through the JVM's one
 *  [[CacheManager]], sized by the first options that asked for it. */
object LocalFileCache {

  /** What one JVM did, for metrics: files built and reused, lookups, bytes of built files. */
  final case class Stats(built: Long, reused: Long, removed: Long, bytesBuilt: Long, filesHeld: Int, bytesHeld: Long) {
    def hitRate: Double = if (built + reused == 0) 0.0 else reused.toDouble / (built + reused)
  }

  /** A built file: its reader and size. `release` when done with it. */
  final class Entry private[LocalFileCache] (val id: String, val file: File, val reader: LookupStoreReader,
      val bytes: Long, retentionMillis: Long) {
    private[LocalFileCache] val users = new AtomicInteger()
    @volatile private[LocalFileCache] var lastUsed: Long = System.currentTimeMillis()
    private[LocalFileCache] def expired(now: Long): Boolean = now - lastUsed >= retentionMillis
  }

  private val entries = new ConcurrentHashMap[String, Entry]()
  private val built = new AtomicLong()
  private val reused = new AtomicLong()
  private val removed = new AtomicLong()
  private val bytesBuilt = new AtomicLong()
  @volatile private var manager: CacheManager = _

  /** The JVM's cache of lookup-file blocks, made from the first options that ask for it. */
  def cacheManager(options: LookupOptions): CacheManager = {
    if (manager == null) synchronized {
      if (manager == null) manager = CacheManager.fromOptions(options)
    }
    manager
  }

  /** The file of `id`, built into `dir` by `build` (which writes it through the writer it is given and
   *  returns nothing) unless cached; acquired until [[release]]. */
  def acquire(id: String, dir: File, options: LookupOptions, expectedEntries: Long, retentionMillis: Long)(
      build: LookupStoreWriter => Unit): Entry = {
    var entry: Entry = null
    var fresh = false
    while (entry == null) {
      val e =
        entries.computeIfAbsent(id, _ => { fresh = true; create(id, dir, options, expectedEntries, retentionMillis, build) })
      // taken under the lock that removal holds: a file is either removed or in use, never both
      synchronized {
        if (entries.get(id) eq e) {
          e.users.incrementAndGet()
          entry = e
        }
      }
    }
    entry.lastUsed = System.currentTimeMillis()
    if (!fresh) reused.incrementAndGet()
    entry
  }

  /** Gives the file back; then removes files past their retention or beyond `maxDiskBytes`. */
  def release(e: Entry, maxDiskBytes: Long): Unit = {
    e.lastUsed = System.currentTimeMillis()
    e.users.decrementAndGet()
    evict(maxDiskBytes)
  }

  /** Removes every file not in use (tests, and a JVM's shutdown). */
  def clear(): Unit = evict(-1L)

  def stats: Stats = {
    val held = entries.values().asScala.toSeq
    Stats(built.get(), reused.get(), removed.get(), bytesBuilt.get(), held.size, held.map(_.bytes).sum)
  }

  private def create(id: String, dir: File, options: LookupOptions, expectedEntries: Long, retentionMillis: Long,
      build: LookupStoreWriter => Unit): Entry = {
    dir.mkdirs()
    val file = File.createTempFile("lookup-", ".lkp", dir)
    val factory = LookupStoreFactory.create(options, cacheManager(options))
    try {
      val writer = factory.createWriter(file, math.max(1L, expectedEntries))
      try build(writer)
      catch { case t: Throwable => writer.close(); throw t }
      val bytes = writer.finish()
      built.incrementAndGet()
      bytesBuilt.addAndGet(bytes)
      new Entry(id, file, factory.createReader(file), bytes, retentionMillis)
    } catch {
      case t: Throwable =>
        file.delete()
        throw t
    }
  }

  private def evict(maxDiskBytes: Long): Unit = synchronized {
    val now = System.currentTimeMillis()
    val idle = entries.values().asScala.toSeq.filter(_.users.get() == 0).sortBy(_.lastUsed)
    var total = entries.values().asScala.iterator.map(_.bytes).sum
    idle.foreach { e =>
      if ((maxDiskBytes < 0 || e.expired(now) || total > maxDiskBytes) && entries.remove(e.id, e)) {
        total -= e.bytes
        removed.incrementAndGet()
        e.reader.close()
        e.file.delete()
      }
    }
  }
}
