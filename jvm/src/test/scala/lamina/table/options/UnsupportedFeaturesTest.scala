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
    assert(Seq(Write, Compact).map(blocked(dv, pk = true, _)) === Seq.fill(2)(Seq("deletion-vectors.enabled")))
    val dynamic = Map.empty[String, String] // Paimon's default bucket is -1
    assert(blocked(dynamic, pk = true, Read).isEmpty)
    assert(blocked(dynamic, pk = true, Write) === Seq("bucket"))
    assert(blocked(dynamic, pk = false, Write).isEmpty) // an append table with bucket -1 is unaware
    val producer = Map("bucket" -> "1", "changelog-producer" -> "lookup")
    assert(blocked(producer, pk = true, Read).isEmpty)
    assert(blocked(producer, pk = true, Compact) === Seq("changelog-producer"))
    assert(blocked(Map("sequence.field.sort-order" -> "descending", "bucket" -> "1"), pk = true, Read) === Seq(
      "sequence.field.sort-order"))
    assert(blocked(Map("sequence.field.sort-order" -> "ascending", "bucket" -> "1"), pk = true, Read).isEmpty)
  }

  test("the refusal names the table, the feature, the option and the operation") {
    val e = intercept[BadInputException](
      UnsupportedFeatures.check("db.t", Map("deletion-vectors.enabled" -> "true"), primaryKeyTable = true, Write))
    assert(e.getMessage === "Table db.t uses deletion vectors ('deletion-vectors.enabled' = 'true'), which Lamina " +
      "reads but cannot write yet (writes and compaction must maintain the vectors by lookup compaction): writing it " +
      "(INSERT, DELETE, UPDATE, MERGE, TRUNCATE) is refused, so that the table stays right for Paimon's readers")
    val r = intercept[BadInputException](
      UnsupportedFeatures.check("db.t", Map("sequence.field.sort-order" -> "descending"), primaryKeyTable = true, Read))
    assert(r.getMessage === "Table db.t uses descending sequence order ('sequence.field.sort-order' = 'descending'), " +
      "which Lamina does not implement: reading it is refused, so that the table stays right for Paimon's readers")
    val d = intercept[BadInputException](
      UnsupportedFeatures.checkDefinition("db.t", Map("changelog-producer" -> "input", "bucket" -> "1"), primaryKeyTable = true))
    assert(
      d.getMessage === "Table db.t: 'changelog-producer' = 'input' asks for a changelog producer, which Lamina does not implement")
  }
}
