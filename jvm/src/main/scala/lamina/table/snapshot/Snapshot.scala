package lamina.table.snapshot

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.JsonNodeFactory

import lamina.errors.CorruptFileException

/** One committed version of a table: the `snapshot/snapshot-<id>` JSON file of Paimon's layout.
 *  Invariant: base + delta manifest lists together name every live data file of this version. */
final case class Snapshot(
    id: Long,
    schemaId: Long,
    baseManifestList: String,
    baseManifestListSize: Option[Long],
    deltaManifestList: String,
    deltaManifestListSize: Option[Long],
    changelogManifestList: Option[String],
    changelogManifestListSize: Option[Long],
    indexManifest: Option[String],
    commitUser: String,
    commitIdentifier: Long,
    commitKind: String,
    timeMillis: Long,
    totalRecordCount: Long,
    deltaRecordCount: Long,
    changelogRecordCount: Option[Long],
    watermark: Option[Long],
    version: Int = Snapshot.CurrentVersion) {

  def toJson: String = {
    val f = JsonNodeFactory.instance
    val o = f.objectNode()
    o.put("version", version)
    o.put("id", id)
    o.put("schemaId", schemaId)
    o.put("baseManifestList", baseManifestList)
    baseManifestListSize.foreach(o.put("baseManifestListSize", _))
    o.put("deltaManifestList", deltaManifestList)
    deltaManifestListSize.foreach(o.put("deltaManifestListSize", _))
    changelogManifestList.foreach(o.put("changelogManifestList", _))
    changelogManifestListSize.foreach(o.put("changelogManifestListSize", _))
    indexManifest.foreach(o.put("indexManifest", _))
    o.put("commitUser", commitUser)
    o.put("commitIdentifier", commitIdentifier)
    o.put("commitKind", commitKind)
    o.put("timeMillis", timeMillis)
    o.putObject("logOffsets")
    o.put("totalRecordCount", totalRecordCount)
    o.put("deltaRecordCount", deltaRecordCount)
    changelogRecordCount.foreach(o.put("changelogRecordCount", _))
    watermark.foreach(o.put("watermark", _))
    Snapshot.Mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o)
  }
}

object Snapshot {
  val CurrentVersion = 3
  private val Mapper = new ObjectMapper()

  object Kind {
    val Append = "APPEND"
    val Compact = "COMPACT"
    val Overwrite = "OVERWRITE"
  }

  def fromJson(json: String, path: String): Snapshot = {
    val n: JsonNode =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "snapshot JSON", "unparsable text", e.getMessage, e) }
    def req(k: String): JsonNode = Option(n.get(k)).filterNot(_.isNull)
      .getOrElse(throw new CorruptFileException(path, 0, s"field '$k'", "missing"))
    def optL(k: String): Option[Long] = Option(n.get(k)).filterNot(_.isNull).map(_.asLong)
    def optS(k: String): Option[String] = Option(n.get(k)).filterNot(_.isNull).map(_.asText)
    Snapshot(
      id = req("id").asLong,
      schemaId = req("schemaId").asLong,
      baseManifestList = req("baseManifestList").asText,
      baseManifestListSize = optL("baseManifestListSize"),
      deltaManifestList = req("deltaManifestList").asText,
      deltaManifestListSize = optL("deltaManifestListSize"),
      changelogManifestList = optS("changelogManifestList"),
      changelogManifestListSize = optL("changelogManifestListSize"),
      indexManifest = optS("indexManifest"),
      commitUser = optS("commitUser").getOrElse(""),
      commitIdentifier = optL("commitIdentifier").getOrElse(Long.MaxValue),
      commitKind = req("commitKind").asText,
      timeMillis = req("timeMillis").asLong,
      totalRecordCount = optL("totalRecordCount").getOrElse(0L),
      deltaRecordCount = optL("deltaRecordCount").getOrElse(0L),
      changelogRecordCount = optL("changelogRecordCount"),
      watermark = optL("watermark"),
      version = Option(n.get("version")).map(_.asInt).getOrElse(1))
  }
}
