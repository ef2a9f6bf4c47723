package lamina.table.tag

import java.time.{Duration, LocalDateTime}

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.{BadInputException, CorruptFileException}
import lamina.table.snapshot.Snapshot

class TagTest extends AnyFunSuite {
  private val mapper = new ObjectMapper()
  private val snapshot = Snapshot(
    id = 5, schemaId = 0, baseManifestList = "manifest-list-a-0", baseManifestListSize = Some(10L),
    deltaManifestList = "manifest-list-a-1", deltaManifestListSize = Some(11L), changelogManifestList = None,
    changelogManifestListSize = None, indexManifest = None, commitUser = "u", commitIdentifier = 1L,
    commitKind = Snapshot.Kind.Append, timeMillis = 1700000000000L, totalRecordCount = Some(3L),
    deltaRecordCount = 3L, changelogRecordCount = Some(0L), watermark = None)

  test("JSON round trip: the snapshot's fields plus Paimon's tagCreateTime array and tagTimeRetained seconds") {
    val tag = Tag(snapshot, Some(LocalDateTime.of(2024, 5, 1, 12, 30, 15, 123000000)), Some(Duration.ofHours(25)))
    val tree = mapper.readTree(tag.toJson)
    assert(tree.get("tagCreateTime").toString === "[2024,5,1,12,30,15,123000000]")
    assert(tag.toJson.contains("\"tagTimeRetained\" : 90000.000000000"))
    assert(tree.get("id").asLong === 5L)
    assert(Tag.fromJson(tag.toJson, "mem") === tag)
    val bare = Tag(snapshot, None, None)
    assert(!mapper.readTree(bare.toJson).has("tagCreateTime"))
    assert(Tag.fromJson(bare.toJson, "mem") === bare)
  }

  test("reads what Jackson's JavaTimeModule writes: trailing zero fields left out, fractional seconds") {
    val o = mapper.readTree(snapshot.toJson).asInstanceOf[ObjectNode]
    o.set("tagCreateTime", mapper.readTree("[2024,5,1,12,30]"))
    o.set("tagTimeRetained", mapper.readTree("1.500000000"))
    val t = Tag.fromJson(o.toString, "mem")
    assert(t.createTime === Some(LocalDateTime.of(2024, 5, 1, 12, 30)))
    assert(t.timeRetained === Some(Duration.ofMillis(1500)))
    assert(t.snapshot === snapshot)
  }

  test("a damaged create time is corruption naming the file") {
    val o = mapper.readTree(snapshot.toJson).asInstanceOf[ObjectNode]
    o.set("tagCreateTime", mapper.readTree("[2024,13,1,12,30]"))
    val e = intercept[CorruptFileException](Tag.fromJson(o.toString, "/t/tag/tag-x"))
    assert(e.getMessage.startsWith("Corrupt file /t/tag/tag-x at offset 0: expected field 'tagCreateTime'"))
  }

  test("expiry by retention") {
    val created = LocalDateTime.of(2024, 5, 1, 0, 0)
    val tag = Tag(snapshot, Some(created), Some(Duration.ofDays(1)))
    assert(!tag.isExpired(created.plusHours(23)))
    assert(tag.isExpired(created.plusDays(1)))
    assert(!Tag(snapshot, Some(created), None).isExpired(created.plusYears(10)))
  }

  test("tag names: one file-name segment, not all digits") {
    assert(TagManager.checkName("release-1.0") === "release-1.0")
    assert(intercept[BadInputException](TagManager.checkName("42")).getMessage ===
      "Invalid tag name '42': it must not be all digits (that names a snapshot id)")
    assert(intercept[BadInputException](TagManager.checkName("a/b")).getMessage ===
      "Invalid tag name 'a/b': it must not contain '/'")
    assert(intercept[BadInputException](TagManager.checkName(" ")).getMessage === "The tag name must not be empty")
  }
}
