package lamina.table.snapshot

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.JsonNodeFactory

import lamina.errors.CorruptFileException
import lamina.table.StrictJson

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
    totalRecordCount: Option[Long],
    deltaRecordCount: Long,
    changelogRecordCount: Option[Long],
    watermark: Option[Long],
    version: Int = Snapshot.CurrentVersion,
    properties: Map[String, String] = Map.empty,
    statistics: Option[String] = None) {

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
    totalRecordCount.foreach(o.put("totalRecordCount", _))
    o.put("deltaRecordCount", deltaRecordCount)
    changelogRecordCount.foreach(o.put("changelogRecordCount", _))
    watermark.foreach(o.put("watermark", _))
    statistics.foreach(o.put("statistics", _))
    if (properties.nonEmpty) {
      val p = o.putObject("properties")
      properties.toSeq.sortBy(_._1).foreach { case (k, v) => p.put(k, v) }
    }
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
    val Analyze = "ANALYZE"
  }

  /** Every field a snapshot file of Paimon's spec (up to version 3) may hold. */
  val Fields: Set[String] = Set("version", "id", "schemaId", "baseManifestList", "baseManifestListSize",
    "deltaManifestList", "deltaManifestListSize", "changelogManifestList", "changelogManifestListSize",
    "indexManifest", "commitUser", "commitIdentifier", "commitKind", "timeMillis", "logOffsets", "totalRecordCount",
    "deltaRecordCount", "changelogRecordCount", "watermark", "statistics", "properties", "nextRowId", "uuid")

  val Kinds: Set[String] = Set(Kind.Append, Kind.Compact, Kind.Overwrite, Kind.Analyze)

  /** Parses strictly: a snapshot decides which files a reader sees, so a field that is missing, of
   *  the wrong JSON type, out of range or misnamed (a damaged byte in its name) is a
   *  [[CorruptFileException]] naming the file, never a default. */
  def fromJson(json: String, path: String): Snapshot = {
    val n: JsonNode =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "snapshot JSON", "unparsable text", e.getMessage, e) }
    if (n == null || !n.isObject) throw new CorruptFileException(path, 0, "a JSON object", "other text")
    val fields = new StrictJson(n, path, "snapshot")
    fields.refuseNearMisses(Fields)
    import fields._
    val version = optInt("version").getOrElse(1)
    if (version < 1 || version > CurrentVersion)
      throw new CorruptFileException(path, 0, s"snapshot version 1 to $CurrentVersion", version.toString)
    val id = long("id")
    if (id < 1) throw new CorruptFileException(path, 0, "a snapshot id of at least 1", id.toString)
    val schemaId = long("schemaId")
    val base = fileName("baseManifestList")
    val kind = text("commitKind")
    if (!Kinds.contains(kind))
      throw new CorruptFileException(path, 0, s"commitKind one of ${Kinds.toSeq.sorted.mkString(", ")}", kind)
    Snapshot(
      id = id,
      schemaId = schemaId,
      baseManifestList = base,
      baseManifestListSize = optLong("baseManifestListSize"),
      deltaManifestList = fileName("deltaManifestList"),
      deltaManifestListSize = optLong("deltaManifestListSize"),
      changelogManifestList = optFileName("changelogManifestList"),
      changelogManifestListSize = optLong("changelogManifestListSize"),
      indexManifest = optFileName("indexManifest"),
      commitUser = optText("commitUser").getOrElse(""),
      commitIdentifier = optLong("commitIdentifier").getOrElse(Long.MaxValue),
      commitKind = kind,
      timeMillis = long("timeMillis"),
      totalRecordCount = optLong("totalRecordCount"),
      deltaRecordCount = optLong("deltaRecordCount").getOrElse(0L),
      changelogRecordCount = optLong("changelogRecordCount"),
      watermark = optLong("watermark"),
      version = version,
      properties = properties(n, path),
      statistics = optFileName("statistics"))
  }

  /** Paimon's optional `properties`: an object of strings (null when empty). */
  private def properties(n: JsonNode, path: String): Map[String, String] = {
    import scala.jdk.CollectionConverters._
    Option(n.get("properties")).filterNot(_.isNull) match {
      case None => Map.empty
      case Some(o) if o.isObject && o.properties().asScala.forall(_.getValue.isTextual) =>
        o.properties().asScala.map(e => e.getKey -> e.getValue.asText).toMap
      case Some(o) => throw new CorruptFileException(path, 0, "field 'properties' to be an object of strings", o.toString)
    }
  }
}
