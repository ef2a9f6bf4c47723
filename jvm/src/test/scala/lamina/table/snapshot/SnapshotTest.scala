package lamina.table.snapshot

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.scalatest.funsuite.AnyFunSuite

import lamina.errors.CorruptFileException
import lamina.table.TestTables

class SnapshotTest extends AnyFunSuite {
  private val mapper = new ObjectMapper()

  private val full = Snapshot(
    id = 12, schemaId = 3,
    baseManifestList = "manifest-list-a-0", baseManifestListSize = Some(1234L),
    deltaManifestList = "manifest-list-a-1", deltaManifestListSize = Some(99L),
    changelogManifestList = Some("manifest-list-a-2"), changelogManifestListSize = Some(7L),
    indexManifest = Some("index-manifest-x"),
    commitUser = "user-1", commitIdentifier = 42L, commitKind = Snapshot.Kind.Compact,
    timeMillis = 1795306625877L, totalRecordCount = Some(1000L), deltaRecordCount = -5L,
    changelogRecordCount = Some(3L), watermark = Some(Long.MinValue), properties = Map("lamina.operation" -> "MERGE"),
    statistics = Some("stat-2b1c-0"))

  private val minimal = full.copy(baseManifestListSize = None, deltaManifestListSize = None,
    changelogManifestList = None, changelogManifestListSize = None, indexManifest = None,
    changelogRecordCount = None, watermark = None, properties = Map.empty, statistics = None)

  test("JSON round trip with every optional field set and with none") {
    assert(Snapshot.fromJson(full.toJson, "mem") === full)
    assert(Snapshot.fromJson(minimal.toJson, "mem") === minimal)
    val tree = mapper.readTree(minimal.toJson)
    assert(mapper.readTree(full.toJson).get("properties").get("lamina.operation").asText === "MERGE")
    assert(mapper.readTree(full.toJson).get("statistics").asText === "stat-2b1c-0")
    for (absent <- Seq("baseManifestListSize", "changelogManifestList", "indexManifest", "watermark", "properties",
        "statistics"))
      assert(!tree.has(absent), absent)
    assert(tree.get("logOffsets").isObject)
  }

  test("optional fields missing from old files get their defaults") {
    val o = mapper.readTree(minimal.toJson).asInstanceOf[ObjectNode]
    Seq("version", "commitUser", "commitIdentifier", "totalRecordCount", "deltaRecordCount").foreach(o.remove)
    val s = Snapshot.fromJson(o.toString, "mem")
    assert(s === minimal.copy(version = 1, commitUser = "", commitIdentifier = Long.MaxValue,
      totalRecordCount = None, deltaRecordCount = 0L))
  }

  test("reads the snapshots pypaimon wrote") {
    val dir = TestTables.tempDir("snapshot-fixture")
    try {
      val table = TestTables.copyFixture("pypaimon_table", dir)
      val s1 =
        Snapshot.fromJson(new String(java.nio.file.Files.readAllBytes(table.resolve("snapshot/snapshot-1")), "UTF-8"), "s1")
      val s2 =
        Snapshot.fromJson(new String(java.nio.file.Files.readAllBytes(table.resolve("snapshot/snapshot-2")), "UTF-8"), "s2")
      assert((s1.id, s1.commitKind, s1.totalRecordCount.get, s1.deltaRecordCount) === ((1L, "APPEND", 4L, 4L)))
      assert((s2.id, s2.commitKind, s2.totalRecordCount.get, s2.deltaRecordCount) === ((2L, "OVERWRITE", 4L, 0L)))
      for (s <- Seq(s1, s2)) {
        assert(s.version === 3)
        assert(s.schemaId === 0L)
        assert(s.commitIdentifier === Long.MaxValue)
        assert(s.commitUser.nonEmpty)
        assert(s.indexManifest === None)
        assert(s.watermark === None)
        // the sizes pypaimon recorded are the sizes of the list files it wrote
        for ((name, size) <- Seq(s.baseManifestList -> s.baseManifestListSize, s.deltaManifestList -> s.deltaManifestListSize)) {
          assert(name.startsWith("manifest-list-"))
          assert(size === Some(java.nio.file.Files.size(table.resolve("manifest").resolve(name))), name)
        }
      }
      assert(s1.timeMillis <= s2.timeMillis)
    } finally TestTables.deleteRecursively(dir)
  }

  test("missing or null required fields are corruption naming the file and the field") {
    for (field <- Seq("id", "schemaId", "baseManifestList", "deltaManifestList", "commitKind", "timeMillis");
      asNull <- Seq(false, true)) {
      val o = mapper.readTree(full.toJson).asInstanceOf[ObjectNode]
      if (asNull) o.putNull(field) else o.remove(field)
      val e = intercept[CorruptFileException](Snapshot.fromJson(o.toString, "/w/db.db/t/snapshot/snapshot-12"))
      assert(e.getMessage === s"Corrupt file /w/db.db/t/snapshot/snapshot-12 at offset 0: expected field '$field', found missing")
    }
  }

  test("unparsable text is corruption naming the file") {
    for (text <- Seq("{\"id\": ", "not json at all {{", "{\"id\": 1} trailing]")) {
      val e = intercept[CorruptFileException](Snapshot.fromJson(text, "/w/snapshot-3"))
      assert(e.getMessage.startsWith("Corrupt file /w/snapshot-3 at offset 0: expected "), text)
    }
    val e = intercept[CorruptFileException](Snapshot.fromJson("{\"id\": ", "/w/snapshot-3"))
    assert(e.getMessage.startsWith("Corrupt file /w/snapshot-3 at offset 0: expected snapshot JSON, found unparsable text ("))
    val empty = intercept[CorruptFileException](Snapshot.fromJson("", "/w/snapshot-4"))
    assert(empty.getMessage === "Corrupt file /w/snapshot-4 at offset 0: expected a JSON object, found other text")
  }
}
