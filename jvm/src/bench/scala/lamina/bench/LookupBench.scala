package lamina.bench

import java.io.{File, PrintWriter}
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.Locale

import scala.collection.mutable.ArrayBuffer
import scala.util.Random

import org.rocksdb.{
  BlockBasedTableConfig,
  CompressionType => RocksCompression,
  LRUCache,
  Options => RocksOptions,
  RocksDB,
  WriteBatch,
  WriteOptions,
  FlushOptions,
  BloomFilter => RocksBloomFilter
}

import lamina.lookup._
import lamina.lookup.cache.CacheManager
import lamina.lookup.compression.CompressionType

/** Build and lookup throughput of the local lookup stores, against baselines measured in the same
 *  process: binary search over an in-memory sorted array of the same keys, and RocksDB through JNI.
 *
 * Usage: `bench/runMain lamina.bench.LookupBench [--out DIR] [--quick] [--keys 1000000,10000000]
 *   [--values 0,64,500] [--lookups N] [--cold-lookups N] [--work DIR] [--no-rocksdb]`
 *
 * Keys are 16 bytes: an 8-byte big-endian even number then 8 mixed bytes, so a miss key (odd number)
 * falls between hits. Values come from a pool of 4096 random arrays. Each measured phase runs after an
 * unmeasured warm-up pass of the same work; builds are the median of three after an unmeasured one, except over 1 GB of data (10M keys with 500-byte values), built once. "Warm" means the lookup cache holds the whole file (a
 * 8 GiB budget, for RocksDB's block cache too, holds the largest, 10M keys with 500-byte values; the JVM
 * needs about 10 GiB of heap, which `make bench` gives it); "cold" means an index pool large enough for index blocks, bloom filters and hash
 * slots (256 MiB) and a data pool of 1 MiB, so nearly every lookup reads and decodes a data block or
 * page from the file (through the OS page cache) -- as RocksDB's baseline keeps its index and filter
 * blocks in table-reader memory and its 1 MiB block cache holds little data. Cold lookups of the default
 * sort file are also compared with RocksDB built with the same block size and codec (64 KiB, zstd). Writes `lookup.json` and
 * `lookup.md` to DIR.
 */
object LookupBench {

  final case class Config(
      out: File = new File("bench/results"),
      work: File = new File("bench/work"),
      keyCounts: Seq[Int] = Seq(1000000, 10000000),
      valueSizes: Seq[Int] = Seq(0, 64, 500),
      lookups: Int = 2000000,
      coldLookups: Int = 50000,
      rocksdb: Boolean = true,
      warmCacheBytes: Long = 8L << 30,
      variants: Set[String] = Set.empty)

  final case class Row(benchmark: String, metric: String, value: Double, baselineName: String, baseline: Double) {
    def ratio: Double = if (baseline > 0) value / baseline else Double.NaN
  }

  private val rows = ArrayBuffer.empty[Row]
  private val ColdIndexPool = 256L << 20
  private val ColdDataPool = 1L << 20
  @volatile private var sink = 0L

  def main(args: Array[String]): Unit = {
    val config = parse(args.toList, Config())
    config.work.mkdirs()
    config.out.mkdirs()
    log(s"config: $config")
    warmUpJit(config)
    for (n <- config.keyCounts; v <- config.valueSizes) runCase(config, n, v)
    writeResults(config)
  }

  private def parse(args: List[String], c: Config): Config = args match {
    case Nil => c
    case "--out" :: dir :: rest => parse(rest, c.copy(out = new File(dir)))
    case "--work" :: dir :: rest => parse(rest, c.copy(work = new File(dir)))
    case "--quick" :: rest => parse(rest, c.copy(keyCounts = Seq(1000000), lookups = 1000000))
    case "--keys" :: list :: rest => parse(rest, c.copy(keyCounts = list.split(',').map(_.trim.toInt).toSeq))
    case "--values" :: list :: rest => parse(rest, c.copy(valueSizes = list.split(',').map(_.trim.toInt).toSeq))
    case "--lookups" :: n :: rest => parse(rest, c.copy(lookups = n.toInt))
    case "--cold-lookups" :: n :: rest => parse(rest, c.copy(coldLookups = n.toInt))
    case "--warm-cache-mb" :: n :: rest => parse(rest, c.copy(warmCacheBytes = n.toLong << 20))
    case "--no-rocksdb" :: rest => parse(rest, c.copy(rocksdb = false))
    case "--variants" :: list :: rest => parse(rest, c.copy(variants = list.split(',').map(_.trim).toSet))
    case other :: _ => throw new IllegalArgumentException(s"Unknown argument '$other'; see the LookupBench doc")
  }

  private def log(s: String): Unit = println(s"[lookup-bench] $s")

  // ---- data -------------------------------------------------------------------------------------

  private def key(i: Long): Array[Byte] = {
    val k = new Array[Byte](16)
    putBigEndian(k, 0, i)
    putBigEndian(k, 8, mix(i))
    k
  }

  private def putBigEndian(b: Array[Byte], off: Int, v: Long): Unit = {
    var j = 0
    while (j < 8) { b(off + j) = (v >>> (56 - 8 * j)).toByte; j += 1 }
  }

  private def mix(x: Long): Long = {
    var z = x + 0x9e3779b97f4a7c15L
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL
    z ^ (z >>> 31)
  }

  final class DataSet(val n: Int, val valueSize: Int) {
    val keys: Array[Array[Byte]] = Array.tabulate(n)(i => key(2L * i))
    private val pool: Array[Array[Byte]] = {
      val rnd = new Random(valueSize)
      Array.fill(4096) { val v = new Array[Byte](valueSize); rnd.nextBytes(v); v }
    }
    def value(i: Int): Array[Byte] = pool(i & 4095)

    /** Key i made afresh, as a writer gets keys serialized from rows: builds do not read `keys`, whose
     *  arrays the collector may have scattered across the heap (reading them would measure that). */
    def buildKey(i: Int): Array[Byte] = key(2L * i)
    def bytes: Long = n.toLong * (16 + valueSize)
    def hitIndexes(count: Int, seed: Long): Array[Int] = { val r = new Random(seed); Array.fill(count)(r.nextInt(n)) }
    def missKeys(count: Int, seed: Long): Array[Array[Byte]] = {
      val r = new Random(seed); Array.fill(count)(key(2L * r.nextInt(n) + 1))
    }
  }

  // ---- stores under test ------------------------------------------------------------------------

  private trait Store {
    def name: String
    def get(k: Array[Byte]): Array[Byte]
    def close(): Unit
  }

  private def build(name: String, data: DataSet, file: File, options: LookupOptions): Double = {
    val factory = LookupStoreFactory.create(options, new CacheManager(1 << 20, 0))
    file.delete()
    val start = System.nanoTime()
    val w = factory.createWriter(file, data.n)
    var i = 0
    while (i < data.n) { w.put(data.buildKey(i), data.value(i)); i += 1 }
    w.finish()
    (System.nanoTime() - start) / 1e9
  }

  private def open(name: String, file: File, options: LookupOptions, cacheBytes: Long): Store = {
    val reader = LookupStoreFactory.create(options, new CacheManager(cacheBytes, options.highPriorityPoolRatio))
      .createReader(file)
    new Store {
      val name0 = name
      def name: String = name0
      def get(k: Array[Byte]): Array[Byte] = reader.lookup(k)
      def close(): Unit = reader.close()
    }
  }

  private def inMemory(data: DataSet): Store = new Store {
    def name = "in-memory sorted array"
    def get(k: Array[Byte]): Array[Byte] = {
      var lo = 0
      var hi = data.n - 1
      while (lo <= hi) {
        val mid = (lo + hi) >>> 1
        val c = java.util.Arrays.compareUnsigned(data.keys(mid), k)
        if (c < 0) lo = mid + 1 else if (c > 0) hi = mid - 1 else return data.value(mid)
      }
      null
    }
    def close(): Unit = ()
  }

  /** RocksDB with blocks of `blockSize` bytes compressed by `compression`: by default RocksDB's own 4 KiB
   *  with LZ4; [[SameBlocks]] matches the default lookup file (64 KiB pages, zstd). */
  private final class Rocks(dir: File, cacheBytes: Long, blockSize: Long = 4096,
      compression: RocksCompression = RocksCompression.LZ4_COMPRESSION)
    extends Store {
    RocksDB.loadLibrary()
    private val cache = new LRUCache(cacheBytes)
    private val table = new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(new RocksBloomFilter(10))
      .setBlockSize(blockSize)
    private val options = new RocksOptions().setCreateIfMissing(true).setTableFormatConfig(table)
      .setCompressionType(compression).setWriteBufferSize(256L << 20)
    val db: RocksDB = RocksDB.open(options, dir.getAbsolutePath)
    def name = "rocksdb"
    def get(k: Array[Byte]): Array[Byte] = db.get(k)
    def close(): Unit = { db.close(); options.close(); cache.close() }
  }

  /** Block size and codec of the second RocksDB baseline for cold lookups: those of the default lookup file. */
  private val SameBlocks = (64L * 1024, RocksCompression.ZSTD_COMPRESSION)

  private def buildRocks(data: DataSet, dir: File, blockSize: Long = 4096,
      compression: RocksCompression = RocksCompression.LZ4_COMPRESSION): Double = {
    deleteRecursively(dir)
    val start = System.nanoTime()
    val r = new Rocks(dir, 8L << 20, blockSize, compression)
    val wo = new WriteOptions().setDisableWAL(true)
    var i = 0
    while (i < data.n) {
      val batch = new WriteBatch()
      val end = math.min(data.n, i + 10000)
      while (i < end) { batch.put(data.buildKey(i), data.value(i)); i += 1 }
      r.db.write(wo, batch)
      batch.close()
    }
    val fo = new FlushOptions().setWaitForFlush(true)
    r.db.flush(fo)
    val secs = (System.nanoTime() - start) / 1e9
    fo.close(); wo.close(); r.close()
    secs
  }

  // ---- measurement ------------------------------------------------------------------------------

  /** Seconds of one build: a build of a few hundred milliseconds is at the mercy of a GC pause or a
   *  late compilation, so below 5M keys it is the median of three measured builds after an unmeasured
   *  one (each build rewrites the same file); above, one build. */
  /** The median of three builds after an unmeasured one; a single build when the data is over 1 GB
   *  (10M keys with 500-byte values), where one build takes long enough to warm up on its own. */
  private def timedBuild(bytes: Long)(build: => Double): Double =
    if (bytes > (1L << 30)) build
    else {
      build
      val times = Seq.fill(3)(build).sorted
      times(1)
    }

  /** Lookups per second over `keys`, after one unmeasured pass. Checks every answer's presence. */
  private def measureLookups(store: Store, keys: Array[Array[Byte]], expectHit: Boolean): Double = {
    def pass(): Double = {
      var acc = 0L
      val start = System.nanoTime()
      var i = 0
      while (i < keys.length) {
        val v = store.get(keys(i))
        if ((v != null) != expectHit)
          throw new IllegalStateException(s"${store.name}: ${if (expectHit) "missing" else "phantom"} key $i")
        if (v != null) acc += v.length + 1
        i += 1
      }
      val secs = (System.nanoTime() - start) / 1e9
      sink += acc
      keys.length / secs
    }
    pass()
    pass()
  }

  private def warmUpJit(config: Config): Unit = {
    log("warm-up: small builds and lookups, and builds with a large bloom filter")
    val data = new DataSet(200000, 16)
    val hits = data.hitIndexes(200000, 1).map(data.keys)
    for (t <- Seq(LocalFileType.Sort, LocalFileType.Hash); c <- Seq(CompressionType.None, CompressionType.Zstd)) {
      val file = new File(config.work, "warmup")
      val o = LookupOptions(localFileType = t, compression = c)
      build("warmup", data, file, o)
      val s = open("warmup", file, o, 64L << 20)
      measureLookups(s, hits, expectHit = true)
      s.close()
      // The cold path (loads, eviction, decoding) must be compiled before it is measured too.
      val cold = open("warmup", file, o.copy(highPriorityPoolRatio = 0.5), 2L << 20)
      measureLookups(cold, hits.take(50000), expectHit = true)
      cold.close()
      file.delete()
    }
    measureLookups(inMemory(data), hits, expectHit = true)
    // A bloom filter over 1 MiB takes its hashes in radix-sorted batches (BloomFilterBuilder), a path
    // the small builds above never take: without this, a single-run 10M-key build pays its compilation.
    val large = new DataSet(2000000, 0)
    for (c <- Seq(CompressionType.None, CompressionType.Zstd)) {
      val file = new File(config.work, "warmup")
      build("warmup", large, file, LookupOptions(compression = c))
      file.delete()
    }
  }

  private def runCase(config: Config, n: Int, valueSize: Int): Unit = {
    val label = s"n=${count(n)}/value=${valueSize}B"
    log(s"case $label: generating data")
    val data = new DataSet(n, valueSize)
    val hits = data.hitIndexes(config.lookups, 11).map(data.keys)
    val misses = data.missKeys(config.lookups, 12)
    val coldHits = data.hitIndexes(config.coldLookups, 13).map(data.keys)
    val memory = inMemory(data)
    val memHit = measureLookups(memory, hits, expectHit = true)
    val memMiss = measureLookups(memory, misses, expectHit = false)

    var rocks: Option[(Double, Double, Double, Double)] = None
    var sameBlocksCold = Double.NaN
    if (config.rocksdb) {
      val dir = new File(config.work, "rocksdb")
      val secs = timedBuild(data.bytes)(buildRocks(data, dir))
      val warm = new Rocks(dir, config.warmCacheBytes)
      val hit = measureLookups(warm, hits, expectHit = true)
      val miss = measureLookups(warm, misses, expectHit = false)
      warm.close()
      val cold = new Rocks(dir, 1L << 20)
      val coldHit = measureLookups(cold, coldHits, expectHit = true)
      cold.close()
      deleteRecursively(dir)
      rocks = Some((n / secs, hit, miss, coldHit))
      log(f"$label rocksdb: build ${n / secs}%.0f entries/s, warm hit $hit%.0f/s, miss $miss%.0f/s, cold hit $coldHit%.0f/s")
      rows += Row(s"build/rocksdb/$label", "entries/s", n / secs, "", Double.NaN)
      // Cold lookups against RocksDB configured like the default lookup file: a miss there reads and
      // decompresses a 64 KiB zstd block too, so the ratio compares the read paths, not the block sizes.
      buildRocks(data, dir, SameBlocks._1, SameBlocks._2)
      val sameBlocks = new Rocks(dir, 1L << 20, SameBlocks._1, SameBlocks._2)
      sameBlocksCold = measureLookups(sameBlocks, coldHits, expectHit = true)
      sameBlocks.close()
      deleteRecursively(dir)
      log(f"$label rocksdb with 64 KiB zstd blocks: cold hit $sameBlocksCold%.0f/s")
    }
    rows += Row(s"lookup/in-memory-array/$label/hit", "ops/s", memHit, "", Double.NaN)
    rows += Row(s"lookup/in-memory-array/$label/miss", "ops/s", memMiss, "", Double.NaN)

    val variants = Seq(
      ("sort", LookupOptions(compression = CompressionType.Zstd)),
      // The same file built with compression in the writing thread (build only: it reads as "sort").
      ("sort-one-thread", LookupOptions(compression = CompressionType.Zstd, backgroundCompression = false)),
      ("sort-uncompressed", LookupOptions(compression = CompressionType.None)),
      ("sort-lz4", LookupOptions(compression = CompressionType.Lz4)),
      // The baseline's settings: RocksDB's default 4 KiB blocks and the LZ4 it is configured with here.
      // Smaller blocks make cold lookups cheaper, at a larger index.
      ("sort-lz4-4k-pages", LookupOptions(compression = CompressionType.Lz4, cachePageSize = 4096)),
      ("hash", LookupOptions(localFileType = LocalFileType.Hash)))
    for ((name, options) <- variants if config.variants.isEmpty || config.variants(name)) {
      val file = new File(config.work, s"$name.lookup")
      val secs = timedBuild(data.bytes)(build(name, data, file, options))
      val eps = n / secs
      val mbps = data.bytes / secs / 1e6
      log(f"$label $name: build $eps%.0f entries/s, $mbps%.1f MB/s, file ${file.length() / 1e6}%.1f MB")
      rows += Row(s"build/$name/$label", "entries/s", eps, "rocksdb", rocks.map(_._1).getOrElse(Double.NaN))
      rows += Row(s"build/$name/$label", "MB/s", mbps, "", Double.NaN)
      rows += Row(s"build/$name/$label", "file MB", file.length() / 1e6, "", Double.NaN)
      if (BuildOnly(name)) file.delete()
      else {
        val warm = open(name, file, options.copy(cacheMaxMemorySize = config.warmCacheBytes), config.warmCacheBytes)
        val hit = measureLookups(warm, hits, expectHit = true)
        val miss = measureLookups(warm, misses, expectHit = false)
        warm.close()
        val cold = open(name, file, options.copy(highPriorityPoolRatio = ColdIndexPool.toDouble / (ColdIndexPool + ColdDataPool)),
          ColdIndexPool + ColdDataPool)
        val coldHit = measureLookups(cold, coldHits, expectHit = true)
        cold.close()
        log(f"$label $name: warm hit $hit%.0f/s, warm miss $miss%.0f/s, cold hit $coldHit%.0f/s")
        rows += Row(s"lookup/$name/$label/warm-hit", "ops/s", hit, "in-memory-array", memHit)
        rows += Row(s"lookup/$name/$label/warm-miss", "ops/s", miss, "in-memory-array", memMiss)
        rocks.foreach { case (_, rHit, rMiss, rCold) =>
          rows += Row(s"lookup/$name/$label/warm-hit", "ops/s", hit, "rocksdb", rHit)
          rows += Row(s"lookup/$name/$label/warm-miss", "ops/s", miss, "rocksdb", rMiss)
          rows += Row(s"lookup/$name/$label/cold-hit", "ops/s", coldHit, "rocksdb", rCold)
          if (name == "sort")
            rows += Row(s"lookup/$name/$label/cold-hit", "ops/s", coldHit, "rocksdb-64k-zstd", sameBlocksCold)
        }
        if (rocks.isEmpty) rows += Row(s"lookup/$name/$label/cold-hit", "ops/s", coldHit, "", Double.NaN)
        file.delete()
      }
    }
  }

  /** Variants whose files read like another variant's: only their build is measured. */
  private val BuildOnly = Set("sort-one-thread")

  private def count(n: Int): String =
    if (n % 1000000 == 0) s"${n / 1000000}M" else if (n % 1000 == 0) s"${n / 1000}K" else n.toString

  // ---- output -----------------------------------------------------------------------------------

  private def num(d: Double): String = if (d.isNaN || d.isInfinite) "null" else String.format(Locale.ROOT, "%.4f", d)

  private def writeResults(config: Config): Unit = {
    val json = rows.map { r =>
      s"""  {"benchmark": "${r.benchmark}", "metric": "${r.metric}", "value": ${num(r.value)}, """ +
        s""""baseline": ${num(r.baseline)}, "ratio": ${num(r.ratio)}, "baseline_name": "${r.baselineName}"}"""
    }.mkString("[\n", ",\n", "\n]\n")
    write(new File(config.out, "lookup.json"), json)
    val md = new StringBuilder
    md ++= "# Lookup store benchmark\n\n"
    md ++= s"Keys: ${config.keyCounts.mkString(", ")}; value sizes: ${config.valueSizes.mkString(", ")} bytes; " +
      s"${config.lookups} warm lookups and ${config.coldLookups} cold lookups per phase; " +
      s"${Runtime.getRuntime.availableProcessors()} cores; Java ${System.getProperty("java.version")}.\n" +
      "Ratio = value / baseline (higher is better for every metric here). Baselines: `rocksdb` is RocksDB with " +
      "4 KiB LZ4 blocks; `rocksdb-64k-zstd` is RocksDB with the default lookup file's 64 KiB zstd blocks (cold " +
      "lookups of the default sort file only).\n\n"
    md ++= "| benchmark | metric | value | baseline | baseline value | ratio |\n|---|---|---:|---|---:|---:|\n"
    rows.foreach { r =>
      def f(d: Double) = if (d.isNaN) "" else if (d >= 1000) f"$d%,.0f" else f"$d%.2f"
      md ++= s"| ${r.benchmark} | ${r.metric} | ${f(r.value)} | ${r.baselineName} | ${f(r.baseline)} | ${f(r.ratio)} |\n"
    }
    write(new File(config.out, "lookup.md"), md.toString)
    log(s"wrote ${config.out}/lookup.json and lookup.md (checksum $sink)")
  }

  private def write(f: File, s: String): Unit = {
    val w = new PrintWriter(f, StandardCharsets.UTF_8)
    try w.write(s)
    finally w.close()
  }

  private def deleteRecursively(f: File): Unit = {
    Option(f.listFiles()).foreach(_.foreach(deleteRecursively))
    Files.deleteIfExists(f.toPath)
  }
}
