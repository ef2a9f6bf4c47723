package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import OptionKind._

class OptionKindTest extends AnyFunSuite {

  test("ints and longs") {
    assert(IntKind.parse("42") === Right(42))
    assert(IntKind.parse("-1") === Right(-1))
    assert(IntKind.parse("2147483647") === Right(Int.MaxValue))
    for (bad <- Seq("2147483648", "4x", "", "1.0", "0x10"))
      assert(IntKind.parse(bad) === Left("expected an integer"), bad)
    assert(LongKind.parse("9223372036854775807") === Right(Long.MaxValue))
    assert(LongKind.parse("9223372036854775808") === Left("expected an integer"))
  }

  test("booleans ignore case and accept nothing else") {
    assert(BooleanKind.parse("true") === Right(true))
    assert(BooleanKind.parse("TRUE") === Right(true))
    assert(BooleanKind.parse("False") === Right(false))
    for (bad <- Seq("yes", "1", "t", ""))
      assert(BooleanKind.parse(bad) === Left("expected true or false"), bad)
  }

  test("memory sizes in every unit") {
    val cases = Seq(
      "0" -> 0L,
      "1073741824" -> 1073741824L,
      "10 b" -> 10L,
      "10bytes" -> 10L,
      "64kb" -> 65536L,
      "64 KiB" -> 65536L,
      "2k" -> 2048L,
      "128 mb" -> (128L << 20),
      "128MB" -> (128L << 20),
      "3 mib" -> (3L << 20),
      "1 g" -> (1L << 30),
      "1 GiB" -> (1L << 30),
      "2 tb" -> (2L << 40),
      "  5 m  " -> (5L << 20))
    for ((text, bytes) <- cases) assert(MemorySizeKind.parse(text) === Right(bytes), text)
    for (bad <- Seq("", "mb", "-1 mb", "1.5 mb", "12 xb", "1 pb", "1 m b"))
      assert(MemorySizeKind.parse(bad) === Left("expected a size such as 128 mb"), bad)
  }

  test("memory sizes beyond a long are rejected, not wrapped or thrown") {
    assert(MemorySizeKind.parse("9223372036854775807") === Right(Long.MaxValue))
    assert(MemorySizeKind.parse("99999999999999999999") === Left("size out of range"))
    assert(MemorySizeKind.parse("8388608 tb") === Left("size out of range"))
    assert(MemorySizeKind.parse("8388607 tb") === Right(8388607L << 40))
  }

  test("durations in milliseconds") {
    val cases = Seq(
      "500" -> 500L,
      "500 ms" -> 500L,
      "10 s" -> 10000L,
      "10sec" -> 10000L,
      "30 min" -> 1800000L,
      "5 m" -> 300000L,
      "1 h" -> 3600000L,
      "1 H" -> 3600000L,
      "2 d" -> 172800000L)
    for ((text, ms) <- cases) assert(DurationKind.parse(text) === Right(ms), text)
    for (bad <- Seq("", "h", "1 week", "1.5 h", "-1 s", "1 hour"))
      assert(DurationKind.parse(bad) === Left("expected a duration such as 1 h"), bad)
  }

  test("durations beyond a long are rejected, not wrapped or thrown") {
    assert(DurationKind.parse("99999999999999999999 ms") === Left("duration out of range"))
    assert(DurationKind.parse("106751991167301 d") === Left("duration out of range"))
    assert(DurationKind.parse("106751991167 d") === Right(106751991167L * 86400000L))
  }

  test("enums parse to their values, in any case, and list the choices") {
    val k = enumOf(Seq(1, 2, 3))(Map(1 -> "zstd", 2 -> "snappy", 3 -> "none"))
    assert(k.name === "zstd|snappy|none")
    assert(k.parse("ZSTD") === Right(1))
    assert(k.parse("Snappy") === Right(2))
    assert(k.textOf(3) === "none")
    assert(k.parse("brotli") === Left("expected one of zstd, snappy, none"))
  }

  test("described kinds say what they expect") {
    val k = described("Double")(_.toDoubleOption.filter(_ > 0))
    assert(k.name === "Double")
    assert(k.parse("0.5") === Right(0.5))
    assert(k.parse("0") === Left("expected Double"))
    assert(k.parse("half") === Left("expected Double"))
  }

  test("lists split on commas and drop blanks") {
    assert(ListKind.parse(" a, b ,,c ") === Right(Seq("a", "b", "c")))
    assert(ListKind.parse("") === Right(Seq.empty))
  }

  test("bounded integers accept their range and name it otherwise") {
    val k = intBetween(1, 22)
    assert(k.parse("1") === Right(1))
    assert(k.parse("22") === Right(22))
    assert(k.parse("0") === Left("expected 1 to 22"))
    assert(k.parse("23") === Left("expected 1 to 22"))
    assert(k.parse("x") === Left("expected an integer"))
  }

  test("OptionDef: value, default, trimming and the error naming option and value") {
    val d = OptionDef("x.size", MemorySizeKind, Some("1 kb"), OptionScope.PerQuery, "doc")
    assert(d.get(Map.empty) === Some(1024L))
    assert(d.get(Map("x.size" -> " 2 kb ")) === Some(2048L))
    assert(d.getOrDefault(Map("other" -> "1")) === 1024L)
    val e = intercept[BadInputException](d.get(Map("x.size" -> "lots")))
    assert(e.getMessage === "Invalid value 'lots' for option 'x.size': expected a size such as 128 mb")
    val huge = intercept[BadInputException](d.get(Map("x.size" -> "99999999999999999999")))
    assert(huge.getMessage === "Invalid value '99999999999999999999' for option 'x.size': size out of range")

    val noDefault = OptionDef("y", IntKind, None, OptionScope.Table, "doc")
    assert(noDefault.get(Map.empty) === None)
    val ise = intercept[IllegalStateException](noDefault.getOrDefault(Map.empty))
    assert(ise.getMessage === "option 'y' has no default")
  }
}
