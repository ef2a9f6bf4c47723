package lamina.spark.stream

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.connector.read.streaming.Offset

import lamina.errors.BadInputException
import lamina.table.scan.StreamPosition

/** A streaming read's offset in Spark's checkpoint: a [[StreamPosition]] as the JSON of Paimon's
 *  Spark source, `{"snapshotId":5,"index":2,"scanSnapshot":false}` (the next unit is unit 2 of
 *  snapshot 5's changes; `scanSnapshot` true: of snapshot 5 read whole). */
final case class LaminaSourceOffset(position: StreamPosition) extends Offset {
  override def json(): String = {
    val o = LaminaSourceOffset.Mapper.createObjectNode()
    o.put("snapshotId", position.snapshotId)
    o.put("index", position.index)
    o.put("scanSnapshot", position.full)
    o.toString
  }
}

object LaminaSourceOffset {
  private val Mapper = new ObjectMapper()

  def fromJson(json: String): LaminaSourceOffset = {
    val n = Mapper.readTree(json)
    def field(name: String) = Option(n).flatMap(x => Option(x.get(name))).getOrElse(
      throw new BadInputException(s"Streaming offset '$json' has no field '$name'"))
    LaminaSourceOffset(StreamPosition(field("snapshotId").asLong(), field("index").asInt(), field("scanSnapshot").asBoolean()))
  }
}
