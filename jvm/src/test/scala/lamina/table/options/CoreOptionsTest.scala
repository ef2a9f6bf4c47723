package lamina.table.options

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.format.DataFileFormat

class CoreOptionsTest extends AnyFunSuite {

  test("every registered default parses with its own kind") {
    assert(CoreOptions.all.nonEmpty)
    for (d <- CoreOptions.all; text <- d.default)
      assert(d.kind.parse(text).isRight, s"default '$text' of '${d.key}'")
  }

  test("registry defaults that other code relies on") {
    assert(CoreOptions.Bucket.getOrDefault(Map.empty) === -1)
    assert(CoreOptions.ManifestMergeMinCount.getOrDefault(Map.empty) === 30)
    assert(CoreOptions.ManifestTargetFileSize.getOrDefault(Map.empty) === 8L * 1024 * 1024)
    assert(CoreOptions.TargetFileSize.getOrDefault(Map.empty) === 128L * 1024 * 1024)
    assert(CoreOptions.StatsMode.getOrDefault(Map.empty) === "truncate(16)")
    assert(CoreOptions.FileFormat.getOrDefault(Map.empty) === DataFileFormat.Parquet)
    assert(CoreOptions.FileFormat.get(Map("file.format" -> "ORC")) === Some(DataFileFormat.Orc))
    assert(CoreOptions.FileCompression.getOrDefault(Map.empty) === FileCompression.Zstd)
    assert(CoreOptions.ParquetWriterVersion.getOrDefault(Map.empty) === ParquetWriterVersion.V2)
    assert(CoreOptions.ManifestCompression.getOrDefault(Map.empty) === ManifestCompression.Zstd)
    assert(CoreOptions.BucketKey.get(Map.empty) === None)
    assert(CoreOptions.find("bucket") === Some(CoreOptions.Bucket))
    assert(CoreOptions.find("no-such-key") === None)
  }

  test("validate accepts known keys with good values and pattern keys") {
    CoreOptions.validate(Map(
      "bucket" -> "4",
      "bucket-key" -> "id",
      "file.format" -> "ORC",
      "manifest.target-file-size" -> "16 mb",
      "fields.price.aggregate-function" -> "sum",
      "fields.a.b.c" -> "x"), "db.t")
  }

  test("validate names the table, the key and the closest valid key") {
    val cases = Seq(
      "buckets" -> "Unknown option 'buckets' for table db.t; did you mean 'bucket'?",
      "file.fromat" -> "Unknown option 'file.fromat' for table db.t; did you mean 'file.format'?",
      "FILE.FORMAT" -> "Unknown option 'FILE.FORMAT' for table db.t; did you mean 'file.format'?",
      "manifest.merge-min-cnt" -> "Unknown option 'manifest.merge-min-cnt' for table db.t; did you mean 'manifest.merge-min-count'?",
      "scan.zzzzzzzzzzzzzzzzzz" -> "Unknown option 'scan.zzzzzzzzzzzzzzzzzz' for table db.t",
      "fields.price" -> "Unknown option 'fields.price' for table db.t",
      "fields.a.B" -> "Unknown option 'fields.a.B' for table db.t")
    for ((key, msg) <- cases) {
      val e = intercept[BadInputException](CoreOptions.validate(Map(key -> "1"), "db.t"))
      assert(e.getMessage === msg, key)
    }
  }

  test("validate rejects bad values of known keys with the option's message") {
    val cases = Seq(
      ("bucket", "two", "Invalid value 'two' for option 'bucket': expected an integer"),
      ("file.format", "csv", "Invalid value 'csv' for option 'file.format': expected one of parquet, orc, avro"),
      ("target-file-size", "big", "Invalid value 'big' for option 'target-file-size': expected a size such as 128 mb"),
      ("target-file-size", "99999999999999999999",
        "Invalid value '99999999999999999999' for option 'target-file-size': size out of range"))
    for ((k, v, msg) <- cases) {
      val e = intercept[BadInputException](CoreOptions.validate(Map(k -> v), "db.t"))
      assert(e.getMessage === msg, s"$k=$v")
    }
  }

  test("suggest stays silent when nothing is close") {
    assert(CoreOptions.suggest("bucket") === Some("bucket"))
    assert(CoreOptions.suggest("bukcet") === Some("bucket"))
    assert(CoreOptions.suggest("qqqqqqqqqqqq") === None)
  }

  test("registerExternal never replaces a registered option") {
    CoreOptions.registerExternal(OptionDef("bucket", OptionKind.StringKind, None, "other"))
    assert(CoreOptions.find("bucket") === Some(CoreOptions.Bucket))
  }

  test("Levenshtein on known pairs") {
    val cases = Seq(
      ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("abc", "abc", 0), ("kitten", "sitting", 3),
      ("flaw", "lawn", 2), ("bucket", "bukcet", 2), ("a", "b", 1), ("intention", "execution", 5))
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
  }

  test("a stored key one edit from a known key is a near miss") {
    assert(CoreOptions.nearMiss("target-file-sizf") === Some("target-file-size"))
    assert(CoreOptions.nearMiss("target-file-size") === None)
    assert(CoreOptions.nearMiss("owner.team") === None)
  }
}
