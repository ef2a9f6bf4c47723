package lamina.lookup

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.lookup.compression.CompressionType

class LookupOptionsTest extends AnyFunSuite {

  test("defaults when no option is given") {
    val o = LookupOptions.fromMap(Map.empty)
    assert(o == LookupOptions())
    assert(o.cachePageSize == 64 * 1024)
    assert(o.localFileType == LocalFileType.Sort)
    assert(o.compression == CompressionType.Zstd)
    assert(o.cacheMaxMemorySize == 256L * 1024 * 1024)
  }

  test("parses every option") {
    val o = LookupOptions.fromMap(Map(
      "cache-page-size" -> "4 kb",
      "lookup.bloom-filter.enabled" -> "FALSE",
      "lookup.bloom-filter.fpp" -> "0.01",
      "lookup.local-file-type" -> "hash",
      "lookup.cache-max-memory-size" -> "1gb",
      "lookup.cache.high-priority-pool-ratio" -> "0",
      "lookup.cache-spill-compression" -> "lz4",
      "lookup.background-compression" -> "false",
      "some.other.option" -> "ignored"))
    assert(o == LookupOptions(4096, bloomFilterEnabled = false, 0.01, LocalFileType.Hash, 1L << 30, 0.0, CompressionType.Lz4,
      backgroundCompression = false))
  }

  test("memory sizes") {
    assert(LookupOptions.parseMemorySize("65536").contains(65536L))
    assert(LookupOptions.parseMemorySize("64k").contains(65536L))
    assert(LookupOptions.parseMemorySize("2 MiB").contains(2L << 20))
    assert(LookupOptions.parseMemorySize("1.5 mb").isEmpty)
    assert(LookupOptions.parseMemorySize("12 parsecs").isEmpty)
  }

  private def rejected(key: String, value: String): String =
    intercept[BadInputException](LookupOptions.fromMap(Map(key -> value))).getMessage

  test("bad values are rejected with a message naming the option") {
    assert(rejected("lookup.cache.high-priority-pool-ratio", "1") ==
      "Invalid value '1' for option 'lookup.cache.high-priority-pool-ratio': expected Double. " +
        LookupOptions.HighPriorityPoolRatio.doc)
    assert(rejected("lookup.local-file-type", "btree") ==
      "Invalid value 'btree' for option 'lookup.local-file-type': expected Enum (sort, hash). " +
        LookupOptions.LocalFileTypeOption.doc)
    assert(rejected("cache-page-size", "0").startsWith("Invalid value '0' for option 'cache-page-size': expected MemorySize."))
    assert(rejected("lookup.bloom-filter.fpp", "1.0").startsWith("Invalid value '1.0' for option 'lookup.bloom-filter.fpp'"))
    assert(rejected("lookup.bloom-filter.enabled", "yes").startsWith("Invalid value 'yes' for option 'lookup.bloom-filter.enabled'"))
    assert(rejected("lookup.cache-spill-compression", "gzip").startsWith("Invalid value 'gzip' for option 'lookup.cache-spill-compression'"))
    assert(rejected("lookup.background-compression", "1").startsWith("Invalid value '1' for option 'lookup.background-compression'"))
    assert(rejected("lookup.cache-max-memory-size", "-1").startsWith("Invalid value '-1' for option 'lookup.cache-max-memory-size'"))
  }

  test("every option is defined once") {
    assert(LookupOptions.definitions.map(_.key).distinct.size == LookupOptions.definitions.size)
    assert(LookupOptions.definitions.size == 8)
  }
}
