package lamina.table.options

import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.BadInputException
import lamina.table.options.TableOperation.{Compact, Read, Write}

class UnsupportedFeaturesTest extends AnyFunSuite {
  private def blocked(o: Map[String, String], pk: Boolean, op: TableOperation): Seq[String] =
    UnsupportedFeatures.blocking(o, pk, op).map(_.key)

  test("a table with none of the features is never refused") {
    for (op <- TableOperation.All) {
      assert(blocked(Map("bucket" -> "2", "changelog-producer" -> "none", "file.format" -> "orc"), pk = true, op).isEmpty)
      assert(blocked(Map.empty, pk = false, op).isEmpty)
    }
  }

  test("each feature blocks the operations it would make wrong") {
    val dv = Map("deletion-vectors.enabled" -> "TRUE", "bucket" -> "2")
    assert(blocked(dv, pk = true, Read).isEmpty) // Lamina applies deletion vectors on read
    assert(blocked(dv, pk = false, Read).isEmpty)
    // lookup compaction maintains the vectors: writes and compaction take such tables
    assert(Seq(Write, Compact).map(blocked(dv, pk = true, _)) === Seq.fill(2)(Seq.empty))
    // Paimon's default bucket is -1: dynamic buckets, implemented (and cross-partition upsert, which
    // DynamicBucketRules tells by the table's keys)
    val dynamic = Map.empty[String, String]
    assert(Seq(Read, Write, Compact).map(blocked(dynamic, pk = true, _)) === Seq.fill(3)(Seq.empty))
    val producer = Map("bucket" -> "1", "changelog-producer" -> "lookup")
    // every producer is implemented on primary-key tables; append tables take none (as in Paimon)
    assert(Seq(Read, Write, Compact).map(blocked(producer, pk = true, _)) === Seq.fill(3)(Seq.empty))
    assert(blocked(producer, pk = false, Write) === Seq("changelog-producer"))
    assert(blocked(Map("scan.fallback-branch" -> "b", "bucket" -> "1"), pk = true, Read) === Seq("scan.fallback-branch"))
    // implemented: descending sequence order and dropping update-before records
    val implemented = Map("sequence.field.sort-order" -> "descending", "ignore-update-before" -> "true", "bucket" -> "1")
    assert(Seq(Read, Write, Compact).map(blocked(implemented, pk = true, _)) === Seq.fill(3)(Seq.empty))
  }

  test("the refusal names the table, the feature, the option and the operation") {
    val e = intercept[BadInputException](
      UnsupportedFeatures.check("db.t", Map("row-tracking.enabled" -> "true", "bucket" -> "2"), primaryKeyTable = true, Write))
    assert(e.getMessage === "Table db.t uses row tracking ('row-tracking.enabled' = 'true'), which " +
      "Lamina does not implement: writing it (INSERT, DELETE, UPDATE, MERGE, TRUNCATE) is refused, so that the " +
      "table stays right for Paimon's readers")
    val r = intercept[BadInputException](
      UnsupportedFeatures.check("db.t", Map("scan.fallback-branch" -> "b"), primaryKeyTable = true, Read))
    assert(r.getMessage === "Table db.t uses a fallback branch ('scan.fallback-branch' = 'b'), " +
      "which Lamina does not implement: reading it is refused, so that the table stays right for Paimon's readers")
    val d = intercept[BadInputException](
      UnsupportedFeatures.checkDefinition("db.t", Map("changelog-producer" -> "lookup", "bucket" -> "1"),
        primaryKeyTable = false))
    assert(d.getMessage.startsWith("Table db.t: 'changelog-producer' = 'lookup' asks for a changelog producer on a " +
        "table without a primary key"))
    UnsupportedFeatures.checkDefinition("db.t", Map("changelog-producer" -> "lookup", "bucket" -> "1"), primaryKeyTable = true)
  }
}

/** Walks every option key of Apache Paimon 1.4.2 (a fixture read from Paimon's own classes): each is
 *  implemented, harmless, or a feature that is refused by name; none is left unclassified. */
class PaimonOptionWalkTest extends AnyFunSuite {
  import UnsupportedFeatures.Support

  private val paimonKeys: Seq[(String, String)] = {
    val in = getClass.getResourceAsStream("/fixtures/paimon-1.4.2-option-keys.tsv")
    try scala.io.Source.fromInputStream(in, "UTF-8").getLines().filterNot(_.startsWith("#")).map { line =>
        val cols = line.split("\t", -1)
        cols(0) -> cols(1)
      }.toList
    finally in.close()
  }

  test("the fixture holds Paimon's keys") {
    assert(paimonKeys.size > 250)
    assert(paimonKeys.toMap.get("snapshot.time-retained").contains("PT1H"))
  }

  test("every Paimon option key is implemented, harmless or a refused feature") {
    val unclassified = paimonKeys.map(_._1).filter(k =>
      UnsupportedFeatures.support(k) match {
        case Support.Implemented | Support.Feature | Support.Harmless(_) => false
        case _ => true
      })
    assert(unclassified.isEmpty, s"keys of Paimon's with no decision: ${unclassified.mkString(", ")}")
  }

  test("no harmless key is also implemented or a feature") {
    val both = HarmlessOptions.Groups.flatMap(_.keys).filter(k =>
      CoreOptions.find(k).isDefined || UnsupportedFeatures.All.exists(_.key == k))
    assert(both.isEmpty, both.mkString(", "))
  }

  /** A value that asks for the feature: the opposite of a boolean default, else something else. */
  private def asking(key: String, default: String): String = key match {
    case "bucket" => "-2"
    case "changelog-producer" => "input"
    case "scan.mode" => "compacted-full"
    case "data-file.external-paths.strategy" => "entropy-inject"
    case _ if default.equalsIgnoreCase("false") => "true"
    case _ => "x"
  }

  test("a feature key holding Paimon's default blocks nothing; asking for the feature blocks an operation, naming the key") {
    val defaults = paimonKeys.toMap
    for (f <- UnsupportedFeatures.All) {
      // a map's default is rendered by Java as {}: stored, such an option is empty
      val default = defaults.getOrElse(f.key, "").replace("{}", "")
      if (default.nonEmpty && f.key != "bucket")
        for (op <- TableOperation.All; pk <- Seq(true, false))
          assert(UnsupportedFeatures.blocking(Map(f.key -> default, "bucket" -> "1"), pk, op).isEmpty, s"${f.key} = $default")
      val options =
        Map(f.key -> asking(f.key, default), "bucket" -> "1") ++ (if (f.key == "bucket") Map("bucket" -> "-2") else Map())
      val kinds = Seq(true, false)
      val refused = TableOperation.All.toSeq.flatMap { op =>
        kinds.flatMap { pk =>
          try { UnsupportedFeatures.check("db.t", options, pk, op); None }
          catch { case e: BadInputException => Some(e.getMessage) }
        }
      }
      assert(refused.nonEmpty, s"${f.key} asks for ${f.name} and nothing is refused")
      assert(refused.forall(_.contains(s"'${f.key}'")), refused.mkString("; "))
    }
  }

  test("unknown keys in Paimon's option space and per-column settings Lamina lacks are refused by name") {
    def refusal(o: Map[String, String]): Option[String] =
      try { UnsupportedFeatures.check("db.t", o, primaryKeyTable = true, Read); None }
      catch { case e: BadInputException => Some(e.getMessage) }
    assert(refusal(Map("scan.some-newer-option" -> "1")).exists(_.contains("'scan.some-newer-option'")))
    assert(refusal(Map("fields.v.default-value" -> "k")).exists(_.contains("'fields.v.default-value'")))
    assert(refusal(Map("fields.v.aggregate-function" -> "sum", "fields.v.ignore-retract" -> "true")).isEmpty)
    assert(refusal(Map("owner.team" -> "ads", "snapshot.time-retained" -> "2 h", "file-index.bloom-filter.columns" -> "v",
          "orc.bloom.filter.columns" -> "v", "parquet.block.size" -> "1024")).isEmpty)
  }
}
