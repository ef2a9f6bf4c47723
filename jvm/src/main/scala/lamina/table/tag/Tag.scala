package lamina.table.tag

import java.time.{Duration, LocalDateTime}

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, ObjectNode}

import lamina.errors.CorruptFileException
import lamina.table.snapshot.Snapshot

/** A named snapshot kept beyond expiration: the `tag/tag-<name>` file of Paimon's layout, which is the
 *  snapshot's JSON plus `tagCreateTime` (Java's LocalDateTime as Jackson writes it: an array
 *  `[year, month, day, hour, minute, second, nanos]`, trailing zero fields may be left out) and
 *  `tagTimeRetained` (a Duration as decimal seconds, `86400.000000000`), both optional.
 *  Invariant: `snapshot` is a snapshot this table committed; its files stay while the tag exists. */
final case class Tag(snapshot: Snapshot, createTime: Option[LocalDateTime], timeRetained: Option[Duration]) {

  def toJson: String = {
    val o = Tag.Mapper.readTree(snapshot.toJson).asInstanceOf[ObjectNode]
    createTime.foreach { t =>
      val a = o.putArray(Tag.CreateTimeField)
      Seq(t.getYear, t.getMonthValue, t.getDayOfMonth, t.getHour, t.getMinute, t.getSecond, t.getNano).foreach(a.add(_))
    }
    timeRetained.foreach { d =>
      val seconds = new java.math.BigDecimal(d.getSeconds).add(java.math.BigDecimal.valueOf(d.getNano.toLong, 9)).setScale(9)
      o.set[JsonNode](Tag.TimeRetainedField, JsonNodeFactory.withExactBigDecimals(true).numberNode(seconds))
    }
    Tag.Mapper.writerWithDefaultPrettyPrinter().writeValueAsString(o)
  }

  /** Whether the tag's retention has run out at `now` (a tag without one never does). */
  def isExpired(now: LocalDateTime): Boolean =
    (createTime, timeRetained) match {
      case (Some(c), Some(d)) => !c.plus(d).isAfter(now)
      case _ => false
    }
}

object Tag {
  val CreateTimeField = "tagCreateTime"
  val TimeRetainedField = "tagTimeRetained"
  private val Mapper = new ObjectMapper()

  def fromJson(json: String, path: String): Tag = {
    val n: JsonNode =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "tag JSON", "unparsable text", e.getMessage, e) }
    if (n == null || !n.isObject) throw new CorruptFileException(path, 0, "a JSON object", "other text")
    val o = n.asInstanceOf[ObjectNode]
    val create = Option(o.remove(CreateTimeField)).filterNot(_.isNull).map(createTime(_, path))
    val retained = Option(o.remove(TimeRetainedField)).filterNot(_.isNull).map(duration(_, path))
    Tag(Snapshot.fromJson(Mapper.writeValueAsString(o), path), create, retained)
  }

  private def createTime(v: JsonNode, path: String): LocalDateTime = {
    def bad = new CorruptFileException(path, 0, s"field '$CreateTimeField' to be [year, month, day, hour, minute(, ...)]",
      v.toString)
    v match {
      case a: ArrayNode if a.size >= 5 && a.size <= 7 && (0 until a.size).forall(i => a.get(i).canConvertToInt) =>
        def f(i: Int) = if (i < a.size) a.get(i).asInt else 0
        try LocalDateTime.of(f(0), f(1), f(2), f(3), f(4), f(5), f(6))
        catch { case _: java.time.DateTimeException => throw bad }
      case _ => throw bad
    }
  }

  private def duration(v: JsonNode, path: String): Duration =
    if (!v.isNumber || v.decimalValue.signum < 0)
      throw new CorruptFileException(path, 0, s"field '$TimeRetainedField' to be seconds", v.toString)
    else {
      val d = v.decimalValue
      val secs = d.setScale(0, java.math.RoundingMode.DOWN)
      Duration.ofSeconds(secs.longValueExact, d.subtract(secs).movePointRight(9).longValue)
    }
}
