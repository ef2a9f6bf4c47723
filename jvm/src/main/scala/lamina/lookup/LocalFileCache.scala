package lamina.lookup

import java.io.File
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}

import scala.jdk.CollectionConverters._

import org.slf4j.LoggerFactory

import lamina.errors.CorruptFileException
import lamina.lookup.cache.CacheManager

/** The local lookup files of one JVM (a Spark executor), shared by all its tasks: each built once
 *  from its source (a remote data file) and kept on local disk, so that the next compaction task on
 *  this JVM that looks into the same data file reuses it.
 *
 *  A local file is a copy; its source is the truth. A file whose size or modification time changed
 *  since it was built is not reused but built again, and one whose reader finds it damaged (a
 *  [[lamina.errors.CorruptFileException]]: its blocks are checksummed) is dropped and built again by
 *  [[rebuild]]; [[Stats.rebuilt]] counts both.
 *
 *  Invariants: one file per id, built at most once while it is cached (tasks that ask for an id being
 *  built wait for it); a file in use (acquired and not released) is never removed; after a release,
 *  files unused for longer than their retention are removed, then the least recently used until the
 *  files add up to at most the disk budget; a dropped file is removed once no task uses it. Blocks
 *  read from the files go through the JVM's one [[CacheManager]], sized by the first options that
 *  asked for it. */
object LocalFileCache {

  /** What one JVM did, for metrics: files built and reused, lookups, bytes of built files. */
  final case class Stats(built: Long, reused: Long, removed: Long, bytesBuilt: Long, filesHeld: Int, bytesHeld: Long,
      rebuilt: Long) {
    def hitRate: Double = if (built + reused == 0) 0.0 else reused.toDouble / (built + reused)
  }

  /** A built file: its reader and size. `release` when done with it. */
  final class Entry private[LocalFileCache] (val id: String, val file: File, val reader: LookupStoreReader,
      val bytes: Long, retentionMillis: Long, private[LocalFileCache] val remake: Remake) {
    private[LocalFileCache] val users = new AtomicInteger()
    @volatile private[LocalFileCache] var lastUsed: Long = System.currentTimeMillis()
    private[LocalFileCache] def expired(now: Long): Boolean = now - lastUsed >= retentionMillis
    private val builtModified = file.lastModified()

    /** Whether the file is as it was built: same size, same modification time. */
    private[LocalFileCache] def unchanged: Boolean = file.length() == bytes && file.lastModified() == builtModified

    /** Dropped from the cache (damaged): removed once no task uses it. */
    @volatile private[LocalFileCache] var dropped = false
  }

  /** What [[acquire]] was asked for an entry: enough to build its file again. */
  private[LocalFileCache] final case class Remake(dir: File, options: LookupOptions, expectedEntries: Long,
      retentionMillis: Long, build: LookupStoreWriter => Unit)

  private val entries = new ConcurrentHashMap[String, Entry]()
  private val built = new AtomicLong()
  private val reused = new AtomicLong()
  private val removed = new AtomicLong()
  private val bytesBuilt = new AtomicLong()
  private val rebuilt = new AtomicLong()
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
    val remake = Remake(dir, options, expectedEntries, retentionMillis, build)
    var entry: Entry = null
    var fresh = false
    while (entry == null) {
      val e = entries.computeIfAbsent(id, _ => { fresh = true; create(id, remake) })
      // taken under the lock that removal holds: a file is either removed or in use, never both
      synchronized {
        if (entries.get(id) eq e) {
          e.users.incrementAndGet()
          entry = e
        }
      }
      if (entry != null && !fresh && !entry.unchanged) {
        // changed on disk since it was built: not to be trusted, built again
        drop(entry)
        giveBack(entry)
        entry = null
      }
    }
    entry.lastUsed = System.currentTimeMillis()
    if (!fresh) reused.incrementAndGet()
    entry
  }

  /** The file of `id`, acquired until [[release]], if it is built and unchanged on disk; never builds. */
  def acquireBuilt(id: String): Option[Entry] = {
    val e = entries.get(id)
    val held = e != null && synchronized {
      val same = entries.get(id) eq e
      if (same) e.users.incrementAndGet()
      same
    }
    if (!held) None
    else if (!e.unchanged) { giveBack(e); None }
    else {
      e.lastUsed = System.currentTimeMillis()
      reused.incrementAndGet()
      Some(e)
    }
  }

  /** `read` of the file of `e`, acquired; should the file turn out damaged (a [[CorruptFileException]]
   *  from `read`), it is built again ([[rebuild]]), handed to `hold` (the caller releases it in place of
   *  `e`, which is released here) and read once more, a second failure thrown. */
  def readRebuilding[T](e: Entry, hold: Entry => Unit)(read: Entry => T): T =
    try read(e)
    catch {
      case damaged: CorruptFileException =>
        log.warn(s"Local lookup file ${e.file} (${e.id}) is damaged; building it again", damaged)
        val fresh = rebuild(e)
        hold(fresh)
        read(fresh)
    }

  private val log = LoggerFactory.getLogger(getClass)

  /** Drops the file of `e`, which its reader found damaged, and returns the file of the same id built
   *  afresh from its source, acquired in place of `e` (which is released). */
  def rebuild(e: Entry): Entry = {
    drop(e)
    giveBack(e)
    val r = e.remake
    acquire(e.id, r.dir, r.options, r.expectedEntries, r.retentionMillis)(r.build)
  }

  /** Gives the file back; then removes files past their retention or beyond `maxDiskBytes`. */
  def release(e: Entry, maxDiskBytes: Long): Unit = {
    giveBack(e)
    evict(maxDiskBytes)
  }

  private def giveBack(e: Entry): Unit = {
    e.lastUsed = System.currentTimeMillis()
    if (e.users.decrementAndGet() == 0 && e.dropped) synchronized(if (e.users.get() == 0) remove(e))
  }

  /** Takes `e` out of the cache, unless another task dropped it first: the next acquirer builds anew. */
  private def drop(e: Entry): Unit = synchronized {
    if (entries.remove(e.id, e)) {
      rebuilt.incrementAndGet()
      e.dropped = true
    }
  }

  private def remove(e: Entry): Unit = {
    removed.incrementAndGet()
    e.reader.close()
    e.file.delete()
  }

  /** Removes every file not in use (tests, and a JVM's shutdown). */
  def clear(): Unit = evict(-1L)

  def stats: Stats = {
    val held = entries.values().asScala.toSeq
    Stats(built.get(), reused.get(), removed.get(), bytesBuilt.get(), held.size, held.map(_.bytes).sum, rebuilt.get())
  }

  private def create(id: String, r: Remake): Entry = {
    r.dir.mkdirs()
    val file = File.createTempFile("lookup-", ".lkp", r.dir)
    val factory = LookupStoreFactory.create(r.options, cacheManager(r.options))
    try {
      val writer = factory.createWriter(file, math.max(1L, r.expectedEntries))
      try r.build(writer)
      catch { case t: Throwable => writer.close(); throw t }
      val bytes = writer.finish()
      built.incrementAndGet()
      bytesBuilt.addAndGet(bytes)
      new Entry(id, file, factory.createReader(file), bytes, r.retentionMillis, r)
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
        remove(e)
      }
    }
  }
}
