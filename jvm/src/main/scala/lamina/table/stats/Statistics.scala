package lamina.table.stats

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}

import lamina.errors.CorruptFileException
import lamina.table.StrictJson

/** One column's statistics in a [[Statistics]] file (Paimon's `ColStats`): the column's field id,
 *  and whatever was computed of its distinct count (an estimate), min and max (as Paimon's serializers
 *  print values: [[StatsValues]]), NULL count, average and maximum length in bytes. */
final case class ColStats(colId: Int, distinctCount: Option[Long], min: Option[String], max: Option[String],
    nullCount: Option[Long], avgLen: Option[Long], maxLen: Option[Long]) {

  /** As Paimon's `ColStats.toString` prints it (the `$statistics` table's `colstat` column). */
  override def toString: String = {
    def v[T](o: Option[T]): String = o.map(_.toString).getOrElse("null")
    s"ColStats{colId=$colId, distinctCount=${v(distinctCount)}, min=${v(min)}, max=${v(max)}, " +
      s"nullCount=${v(nullCount)}, avgLen=${v(avgLen)}, maxLen=${v(maxLen)}}"
  }
}

/** The table statistics that `ANALYZE TABLE` records, as Paimon's `Statistics`: the JSON file
 *  `statistics/stat-<uuid>-0` that a snapshot's `statistics` field names (see
 *  docs/format/statistics.md). `snapshotId` and `schemaId` are those of the snapshot analysed;
 *  `mergedRecordCount` counts the rows a reader sees (a primary-key table's keys after merging),
 *  `mergedRecordSize` estimates their bytes (the live files' size times merged over total records);
 *  `colStats` is keyed by column name. */
final case class Statistics(snapshotId: Long, schemaId: Long, mergedRecordCount: Option[Long],
    mergedRecordSize: Option[Long], colStats: Map[String, ColStats]) {

  def toJson: String = {
    val f = JsonNodeFactory.instance
    val o = f.objectNode()
    o.put("snapshotId", snapshotId)
    o.put("schemaId", schemaId)
    mergedRecordCount.foreach(o.put("mergedRecordCount", _))
    mergedRecordSize.foreach(o.put("mergedRecordSize", _))
    val cols = o.putObject("colStats")
    colStats.toSeq.sortBy(_._2.colId).foreach { case (name, c) =>
      val n: ObjectNode = cols.putObject(name)
      n.put("colId", c.colId)
      c.distinctCount.foreach(n.put("distinctCount", _))
      c.min.foreach(n.put("min", _))
      c.max.foreach(n.put("max", _))
      c.nullCount.foreach(n.put("nullCount", _))
      c.avgLen.foreach(n.put("avgLen", _))
      c.maxLen.foreach(n.put("maxLen", _))
    }
    Statistics.Mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o)
  }

  /** Paimon's `colStats` map as Java prints it, `{a=ColStats{...}, b=...}` (the `colstat` column). */
  def colStatsText: String = colStats.toSeq.sortBy(_._2.colId).map { case (n, c) => s"$n=$c" }.mkString("{", ", ", "}")
}

object Statistics {
  private val Mapper = new ObjectMapper()
  private val Fields = Set("snapshotId", "schemaId", "mergedRecordCount", "mergedRecordSize", "colStats")
  private val ColFields = Set("colId", "distinctCount", "min", "max", "nullCount", "avgLen", "maxLen")

  /** Parses strictly: a missing or mistyped field is a [[CorruptFileException]] naming the file. */
  def fromJson(json: String, path: String): Statistics = {
    val n: JsonNode =
      try Mapper.readTree(json)
      catch {
        case e: Exception => throw new CorruptFileException(path, 0, "statistics JSON", "unparsable text", e.getMessage, e)
      }
    if (n == null || !n.isObject) throw new CorruptFileException(path, 0, "a JSON object", "other text")
    val fields = new StrictJson(n, path, "statistics")
    fields.refuseNearMisses(Fields)
    val cols = Option(n.get("colStats")).filterNot(_.isNull) match {
      case None => Map.empty[String, ColStats]
      case Some(o) if o.isObject =>
        o.properties().asScala.map { e =>
          if (!e.getValue.isObject)
            throw new CorruptFileException(path, 0, s"colStats.${e.getKey} to be an object", e.getValue.toString)
          val c = new StrictJson(e.getValue, path, s"colStats.${e.getKey}")
          c.refuseNearMisses(ColFields)
          e.getKey -> ColStats(c.int("colId"), c.optLong("distinctCount"), c.optText("min"), c.optText("max"),
            c.optLong("nullCount"), c.optLong("avgLen"), c.optLong("maxLen"))
        }.toMap
      case Some(o) => throw new CorruptFileException(path, 0, "field 'colStats' to be an object", o.toString)
    }
    Statistics(fields.long("snapshotId"), fields.long("schemaId"), fields.optLong("mergedRecordCount"),
      fields.optLong("mergedRecordSize"), cols)
  }
}
