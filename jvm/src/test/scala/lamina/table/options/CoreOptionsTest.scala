package lamina.table.options

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.format.DataFileFormat
import lamina.lookup.{LocalFileType, LookupOptions}
import lamina.lookup.compression.CompressionType

class CoreOptionsTest extends AnyFunSuite {

  test("every option has a doc, a scope and a unique key, and every default parses with its own kind") {
    assert(CoreOptions.all.size === 113)
    assert(CoreOptions.all.map(_.key).distinct.size === CoreOptions.all.size)
    for (d <- CoreOptions.all) {
      assert(d.doc.trim.nonEmpty, d.key)
      assert(OptionScope.All.contains(d.scope), d.key)
      assert(d.kind.name.nonEmpty, d.key)
      assert(CoreOptions.find(d.key) === Some(d))
      d.default.foreach(text => assert(d.kind.parse(text).isRight, s"default '$text' of '${d.key}'"))
    }
  }

  test("file.format.per.level: level:format pairs, any case and spacing; the formats a table writes, file.format first") {
    val opts = Map("file.format.per.level" -> " 0:AVRO, 5 : orc ,", "file.format" -> "parquet")
    assert(CoreOptions.FileFormatPerLevel.getOrDefault(opts) === Map(0 -> DataFileFormat.Avro, 5 -> DataFileFormat.Orc))
    assert(CoreOptions.fileFormats(opts) === Seq(DataFileFormat.Parquet, DataFileFormat.Avro, DataFileFormat.Orc))
    assert(CoreOptions.fileFormats(Map("file.format" -> "avro")) === Seq(DataFileFormat.Avro))
    for (bad <- Seq("0:json", "x:avro", "-1:avro", "0avro")) {
      val e = intercept[BadInputException](CoreOptions.FileFormatPerLevel.getOrDefault(Map("file.format.per.level" -> bad)))
      assert(e.getMessage.contains("expected level:format pairs, e.g. 0:avro,5:parquet"), e.getMessage)
    }
  }

  test("file.compression.per.level: level:codec pairs, any case and spacing; a bad pair is named with the codecs") {
    val opts = Map("file.compression.per.level" -> " 0:LZ4, 3 : gzip ,5:none")
    assert(CoreOptions.FileCompressionPerLevel.getOrDefault(opts) ===
      Map(0 -> FileCompression.Lz4, 3 -> FileCompression.Gzip, 5 -> FileCompression.None))
    assert(CoreOptions.FileCompressionPerLevel.get(Map.empty) === None)
    for (bad <- Seq("0:brotli", "x:zstd", "-1:zstd", "0zstd")) {
      val e = intercept[BadInputException](CoreOptions.validate(Map("file.compression.per.level" -> s"1:zstd,$bad"), "db.t"))
      assert(e.getMessage === s"Invalid value '1:zstd,$bad' for option 'file.compression.per.level' of table db.t: " +
        s"expected level:codec pairs, e.g. 0:lz4,1:zstd; '$bad' is not one (a level of 0 or more, a codec of zstd, " +
        "snappy, lz4, gzip, none, uncompressed)")
    }
  }

  test("the options of the merge tree and the lookup store are in the registry without any set-up") {
    for (key <- Seq("merge-engine", "write-only", "changelog-producer", "cache-page-size", "lookup.local-file-type"))
      assert(CoreOptions.find(key).map(_.key) === Some(key))
  }

  test("registry defaults that other code relies on") {
    val none = Map.empty[String, String]
    assert(CoreOptions.Bucket.getOrDefault(none) === -1)
    assert(CoreOptions.ManifestMergeMinCount.getOrDefault(none) === 30)
    assert(CoreOptions.ManifestTargetFileSize.getOrDefault(none) === 8L * 1024 * 1024)
    assert(CoreOptions.TargetFileSize.getOrDefault(none) === 128L * 1024 * 1024)
    assert(CoreOptions.StatsMode.getOrDefault(none) === "truncate(16)")
    assert(CoreOptions.FileFormat.getOrDefault(none) === DataFileFormat.Parquet)
    assert(CoreOptions.FileCompression.getOrDefault(none) === FileCompression.Zstd)
    assert(CoreOptions.ParquetWriterVersion.getOrDefault(none) === ParquetWriterVersion.V2)
    assert(CoreOptions.ManifestCompression.getOrDefault(none) === ManifestCompression.Zstd)
    assert(CoreOptions.BucketKey.get(none) === None)
    assert(CoreOptions.MergeEngine.getOrDefault(none) === MergeEngine.Deduplicate)
    assert(CoreOptions.ChangelogProducer.getOrDefault(none) === ChangelogProducer.None)
    assert(CoreOptions.WriteBufferSize.getOrDefault(none) === 256L * 1024 * 1024)
    assert(CoreOptions.WriteBufferSpillable.getOrDefault(none))
    assert(!CoreOptions.WriteOnly.getOrDefault(none))
    assert(CoreOptions.CompactionMaxSizeAmplificationPercent.getOrDefault(none) === 200)
    assert(CoreOptions.CompactionSizeRatio.getOrDefault(none) === 1)
    assert(CoreOptions.NumSortedRunCompactionTrigger.getOrDefault(none) === 5)
    assert(CoreOptions.find("bucket") === Some(CoreOptions.Bucket))
    assert(CoreOptions.find("no-such-key") === None)
  }

  test("stop trigger and levels follow the compaction trigger unless set") {
    assert(CoreOptions.numSortedRunStopTrigger(Map.empty) === 8)
    assert(CoreOptions.numLevels(Map.empty) === 6)
    val o = Map("num-sorted-run.compaction-trigger" -> "3")
    assert(CoreOptions.numSortedRunStopTrigger(o) === 6)
    assert(CoreOptions.numLevels(o) === 4)
    assert(CoreOptions.numSortedRunStopTrigger(o + ("num-sorted-run.stop-trigger" -> "10")) === 10)
    assert(CoreOptions.numLevels(o + ("num-levels" -> "3")) === 3)
  }

  test("every value of every enumerated option parses to its type and back to its text, in any case") {
    val enums =
      CoreOptions.all.collect { case d if d.kind.isInstanceOf[EnumKind[_]] => d.key -> d.kind.asInstanceOf[EnumKind[Any]] }
    assert(enums.map(_._1).sorted === Seq("avro.codec", "changelog-producer", "data-file.external-paths.strategy",
      "file.compression", "file.format",
      "incremental-between-scan-mode", "lookup-compact", "lookup.cache-spill-compression", "lookup.local-file-type",
      "manifest.compression", "merge-engine", "parquet.writer.version", "partition.expiration-strategy", "scan.mode",
      "sequence.field.sort-order", "tag.automatic-creation", "tag.creation-period"))
    for ((key, kind) <- enums; value <- kind.values) {
      val text = kind.textOf(value)
      assert(kind.parse(text) === Right(value), key)
      assert(kind.parse(text.toUpperCase) === Right(value), key)
      assert(kind.textOf(kind.parse(text).toOption.get) === text, key)
    }
    assert(CoreOptions.MergeEngine.get(Map("merge-engine" -> " First-Row ")) === Some(MergeEngine.FirstRow))
    assert(CoreOptions.FileFormat.get(Map("file.format" -> "ORC")) === Some(DataFileFormat.Orc))
  }

  test("the enumerated options list exactly the values of their types") {
    def texts(key: String): Seq[String] = {
      val kind = CoreOptions.find(key).get.kind.asInstanceOf[EnumKind[Any]]
      kind.values.map(kind.textOf)
    }
    assert(texts("merge-engine") === Seq("deduplicate", "partial-update", "aggregation", "first-row"))
    assert(texts("changelog-producer") === Seq("none", "input", "lookup", "full-compaction"))
    assert(texts("file.format") === Seq("parquet", "orc", "avro"))
    assert(texts("file.compression") === Seq("zstd", "snappy", "lz4", "gzip", "none", "uncompressed"))
    assert(texts("parquet.writer.version") === Seq("v1", "v2"))
    assert(texts("manifest.compression") === Seq("zstd", "deflate", "snappy", "null"))
    assert(texts("lookup.local-file-type") === Seq("sort", "hash"))
    assert(texts("lookup.cache-spill-compression") === Seq("none", "zstd", "lz4"))
    assert(texts("tag.automatic-creation") === Seq("none", "process-time"))
    assert(texts("tag.creation-period") === Seq("daily", "hourly", "two-hours"))
    assert(texts("partition.expiration-strategy") === Seq("values-time", "update-time"))
    assert(texts("sequence.field.sort-order") === Seq("ascending", "descending"))
  }

  test("validate accepts known keys with good values and pattern keys") {
    CoreOptions.validate(
      Map(
        "bucket" -> "4",
        "bucket-key" -> "id",
        "file.format" -> "ORC",
        "manifest.target-file-size" -> "16 mb",
        "merge-engine" -> "partial-update",
        "write-buffer-size" -> "64 mb",
        "lookup.local-file-type" -> "hash",
        "cache-page-size" -> "4 kb",
        "lookup.cache.high-priority-pool-ratio" -> "0.5",
        "fields.price.aggregate-function" -> "sum",
        "fields.a,b.sequence-group" -> "c",
        "fields.a.b.c" -> "x"), "db.t")
  }

  test("validate names the table, the key and the closest valid key") {
    val cases = Seq(
      "buckets" -> "Unknown option 'buckets' for table db.t; did you mean 'bucket'?",
      "file.fromat" -> "Unknown option 'file.fromat' for table db.t; did you mean 'file.format'?",
      "FILE.FORMAT" -> "Unknown option 'FILE.FORMAT' for table db.t; did you mean 'file.format'?",
      "manifest.merge-min-cnt" -> "Unknown option 'manifest.merge-min-cnt' for table db.t; did you mean 'manifest.merge-min-count'?",
      "merge-engin" -> "Unknown option 'merge-engin' for table db.t; did you mean 'merge-engine'?",
      "lookup.local-file-typ" -> "Unknown option 'lookup.local-file-typ' for table db.t; did you mean 'lookup.local-file-type'?",
      "scan.zzzzzzzzzzzzzzzzzz" -> "Unknown option 'scan.zzzzzzzzzzzzzzzzzz' for table db.t",
      "fields.price" -> "Unknown option 'fields.price' for table db.t",
      "fields.a.B" -> "Unknown option 'fields.a.B' for table db.t")
    for ((key, msg) <- cases) {
      val e = intercept[BadInputException](CoreOptions.validate(Map(key -> "1"), "db.t"))
      assert(e.getMessage === msg, key)
    }
  }

  test("validate rejects bad values of known keys naming the table, the option and the value") {
    val cases = Seq(
      ("bucket", "two", "Invalid value 'two' for option 'bucket' of table db.t: expected an integer"),
      ("file.format", "csv", "Invalid value 'csv' for option 'file.format' of table db.t: expected one of parquet, orc, avro"),
      ("target-file-size", "big",
        "Invalid value 'big' for option 'target-file-size' of table db.t: expected a size such as 128 mb"),
      ("target-file-size", "99999999999999999999",
        "Invalid value '99999999999999999999' for option 'target-file-size' of table db.t: size out of range"),
      ("changelog-producer", "bogus",
        "Invalid value 'bogus' for option 'changelog-producer' of table db.t: expected one of none, input, lookup, full-compaction"),
      ("merge-engine", "lsm",
        "Invalid value 'lsm' for option 'merge-engine' of table db.t: expected one of deduplicate, partial-update, aggregation, first-row"),
      ("lookup.cache.high-priority-pool-ratio", "1",
        "Invalid value '1' for option 'lookup.cache.high-priority-pool-ratio' of table db.t: expected Double"),
      ("lookup.local-file-type", "btree",
        "Invalid value 'btree' for option 'lookup.local-file-type' of table db.t: expected Enum (sort, hash)"),
      ("cache-page-size", "0", "Invalid value '0' for option 'cache-page-size' of table db.t: expected MemorySize"),
      ("cache-page-size", "2 gb", "Invalid value '2 gb' for option 'cache-page-size' of table db.t: expected MemorySize"),
      ("lookup.bloom-filter.fpp", "1.0",
        "Invalid value '1.0' for option 'lookup.bloom-filter.fpp' of table db.t: expected Double"),
      ("lookup.bloom-filter.fpp", "2", "Invalid value '2' for option 'lookup.bloom-filter.fpp' of table db.t: expected Double"),
      ("lookup.bloom-filter.enabled", "yes",
        "Invalid value 'yes' for option 'lookup.bloom-filter.enabled' of table db.t: expected Boolean"),
      ("lookup.cache-spill-compression", "gzip",
        "Invalid value 'gzip' for option 'lookup.cache-spill-compression' of table db.t: expected Enum (none, zstd, lz4)"),
      ("lookup.background-compression", "1",
        "Invalid value '1' for option 'lookup.background-compression' of table db.t: expected Boolean"),
      ("lookup.cache-max-memory-size", "-1",
        "Invalid value '-1' for option 'lookup.cache-max-memory-size' of table db.t: expected MemorySize"),
      ("deletion-vector.index-file.target-size", "-1",
        "Invalid value '-1' for option 'deletion-vector.index-file.target-size' of table db.t: expected a size such as 128 mb"))
    for ((k, v, msg) <- cases) {
      val e = intercept[BadInputException](CoreOptions.validate(Map(k -> v), "db.t"))
      assert(e.getMessage === msg, s"$k=$v")
    }
  }

  test("the scope of every option: the ones a session or query may set, and no others") {
    assert(CoreOptions.all.filter(_.scope == OptionScope.PerQuery).map(_.key).toSet === Set("avro.codec",
      "dynamic-bucket.assigner-parallelism", "file.compression.per.level", "incremental-between",
      "merge.key-filter.max-keys", "merge.key-lookup.rows-per-key", "merge.key-lookup.build", "file-index.read.enabled",
      "incremental-between-timestamp", "incremental-between-scan-mode", "scan.mode",
      "read.stream.maxFilesPerTrigger", "read.stream.maxRowsPerTrigger", "consumer-id", "consumer.ignore-progress",
      "deletion-vectors.merge-on-read", "deletion-vector.index-file.target-size", "lookup-compact", "lookup-compact.max-interval",
      "lookup.cache-max-disk-size",
      "lookup.cache-file-retention", "compaction.min.file-num", "compaction.small-file-ratio",
      "zorder.var-length-contribution",
      "target-file-size", "file.compression", "file.compression.zstd-level", "parquet.writer.version",
      "metadata.stats-mode", "manifest.compression", "manifest.target-file-size", "manifest.merge-min-count",
      "commit.max-retries", "scan.snapshot-id", "scan.timestamp-millis", "branch", "write-buffer-size",
      "write-buffer-spillable",
      "write-only", "compaction.max-size-amplification-percent", "compaction.size-ratio",
      "compaction.min.file-num", "compaction.delete-ratio-threshold", "num-sorted-run.compaction-trigger",
      "num-sorted-run.stop-trigger", "cache-page-size",
      "lookup.bloom-filter.enabled", "lookup.bloom-filter.fpp", "lookup.local-file-type", "lookup.cache-max-memory-size",
      "lookup.cache.high-priority-pool-ratio", "lookup.cache-spill-compression", "lookup.background-compression"))
  }

  test("a per-query key is accepted from a session or a query; a key of the table's definition is refused") {
    val where = "the session conf 'spark.lamina.x'"
    CoreOptions.checkPerQuery("db.t", "write-only", "true", where)
    CoreOptions.checkPerQuery("db.t", "target-file-size", "256 mb", "a write option")
    CoreOptions.checkPerQuery("db.t", "scan.snapshot-id", "3", "a read option")
    CoreOptions.checkPerQuery("db.t", "lookup.local-file-type", "HASH", "a read option")
    val table = intercept[BadInputException](CoreOptions.checkPerQuery("db.t", "merge-engine", "first-row", "a write option"))
    assert(table.getMessage === "Option 'merge-engine' of table db.t cannot be set by a write option: it is part of the " +
      "table's definition; change it with ALTER TABLE db.t SET TBLPROPERTIES ('merge-engine' = '...')")
    for (key <- Seq("bucket", "primary-key", "file.format", "sequence.field", "changelog-producer", "num-levels"))
      assert(intercept[BadInputException](CoreOptions.checkPerQuery("db.t", key, "1", where)).getMessage
          .startsWith(s"Option '$key' of table db.t cannot be set by $where: it is part of the table's definition"))
    val bad = intercept[BadInputException](CoreOptions.checkPerQuery("db.t", "write-only", "maybe", where))
    assert(bad.getMessage === "Invalid value 'maybe' for option 'write-only': expected true or false")
  }

  test("an unknown key set by a session or a query is refused with the closest valid key") {
    val e = intercept[BadInputException](CoreOptions.checkPerQuery("db.t", "write-onyl", "true", "a write option"))
    assert(e.getMessage === "Unknown option 'write-onyl' set by a write option for table db.t; did you mean 'write-only'?")
    // user metadata belongs to the table, never to a query
    val user = intercept[BadInputException](CoreOptions.checkPerQuery("db.t", "owner.team", "x", "a read option"))
    assert(user.getMessage.startsWith("Unknown option 'owner.team' set by a read option for table db.t"))
  }

  test("the lookup store's options: defaults, every option, and the library's own defaults") {
    assert(CoreOptions.lookupStore(Map.empty) === LookupOptions())
    assert(CoreOptions.lookupStore(Map.empty).cachePageSize === 64 * 1024)
    assert(CoreOptions.lookupStore(Map.empty).cacheMaxMemorySize === 256L * 1024 * 1024)
    val o = CoreOptions.lookupStore(Map(
        "cache-page-size" -> "4 kb",
        "lookup.bloom-filter.enabled" -> "FALSE",
        "lookup.bloom-filter.fpp" -> "0.01",
        "lookup.local-file-type" -> "hash",
        "lookup.cache-max-memory-size" -> "1gb",
        "lookup.cache.high-priority-pool-ratio" -> "0",
        "lookup.cache-spill-compression" -> "lz4",
        "lookup.background-compression" -> "false",
        "some.other.option" -> "ignored"))
    assert(o === LookupOptions(4096, bloomFilterEnabled = false, 0.01, LocalFileType.Hash, 1L << 30, 0.0, CompressionType.Lz4,
      backgroundCompression = false))
    assert(CoreOptions.lookupStore(Map("cache-page-size" -> "1 gb")).cachePageSize === 1 << 30)
  }

  test("ofTable names the table in front of the option's message") {
    val e = intercept[BadInputException](CoreOptions.IgnoreDelete.ofTable(Map("ignore-delete" -> "perhaps"), "db.t"))
    assert(e.getMessage === "Table db.t: Invalid value 'perhaps' for option 'ignore-delete': expected true or false")
    assert(e.getCause.isInstanceOf[BadInputException])
    assert(!CoreOptions.IgnoreDelete.ofTable(Map.empty, "db.t"))
  }

  test("suggest stays silent when nothing is close") {
    assert(CoreOptions.suggest("bucket") === Some("bucket"))
    assert(CoreOptions.suggest("bukcet") === Some("bucket"))
    assert(CoreOptions.suggest("qqqqqqqqqqqq") === None)
  }

  test("Levenshtein on known pairs") {
    val cases = Seq(
      ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("abc", "abc", 0), ("kitten", "sitting", 3), ("flaw", "lawn", 2),
      ("bucket", "bukcet", 2), ("a", "b", 1), ("intention", "execution", 5))
    for ((a, b, d) <- cases) assert(Levenshtein.distance(a, b) === d, s"$a / $b")
  }

  test("Levenshtein is a metric bounded by the longer length (seeded random strings)") {
    val rnd = new Random(20261122L)
    def word(): String = Seq.fill(rnd.nextInt(8))("abc".charAt(rnd.nextInt(3))).mkString
    for (_ <- 0 until 300) {
      val (a, b, c) = (word(), word(), word())
      val ab = Levenshtein.distance(a, b)
      assert(ab === Levenshtein.distance(b, a), s"$a / $b")
      assert((ab == 0) === (a == b))
      assert(ab <= math.max(a.length, b.length))
      assert(ab >= math.abs(a.length - b.length))
      assert(Levenshtein.distance(a, c) <= ab + Levenshtein.distance(b, c), s"$a / $b / $c")
    }
  }

  test("keys outside Paimon's option space are the user's own, kept") {
    CoreOptions.validate(Map("owner.team" -> "x", "zzzzzzzzzzzzzzzzzzzzzz" -> "y", "retention" -> "7y"), "db.t")
    assert(CoreOptions.isUserKey("owner.team"))
    assert(!CoreOptions.isUserKey("bucket-kye"))
    assert(!CoreOptions.isUserKey("deletion-vectors.enabled"))
    assert(!CoreOptions.isUserKey("bucket"))
    assert(!CoreOptions.isUserKey("write-onl"))
  }

  test("a stored key one edit from a known key is a near miss") {
    assert(CoreOptions.nearMiss("target-file-sizf") === Some("target-file-size"))
    assert(CoreOptions.nearMiss("target-file-size") === None)
    assert(CoreOptions.nearMiss("num-level") === Some("num-levels"))
    assert(CoreOptions.nearMiss("owner.team") === None)
  }
}
