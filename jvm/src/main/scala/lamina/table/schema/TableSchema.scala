package lamina.table.schema

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper, SerializationFeature}
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}

import lamina.errors.CorruptFileException
import lamina.table.options.CoreOptions
import lamina.types._

/** One version of a table's schema: the `schema/schema-<id>` JSON file of Paimon's layout.
 *  Invariant: field ids are unique and never reused; `highestFieldId` >= every id, nested ones too. */
final case class TableSchema(
    id: Long,
    fields: Seq[DataField],
    highestFieldId: Int,
    partitionKeys: Seq[String],
    primaryKeys: Seq[String],
    options: Map[String, String],
    comment: Option[String],
    timeMillis: Long,
    version: Int = TableSchema.CurrentVersion) {

  def fieldNames: Seq[String] = fields.map(_.name)

  def field(name: String): Option[DataField] = fields.find(_.name == name)

  def fieldById(id: Int): Option[DataField] = fields.find(_.id == id)

  def indexOf(name: String): Int = fields.indexWhere(_.name == name)

  def partitionFields: Seq[DataField] = partitionKeys.map(k => field(k).get)

  def partitionTypes: Seq[DataType] = partitionFields.map(_.dataType)

  def primaryKeyFields: Seq[DataField] = primaryKeys.map(k => field(k).get)

  /** Trimmed primary key: the primary key without the partition columns. */
  def trimmedPrimaryKeys: Seq[String] = primaryKeys.filterNot(partitionKeys.contains)

  def numBuckets: Int = CoreOptions.Bucket.getOrDefault(options)

  /** The bucket key: `bucket-key`, else the trimmed primary key. */
  def bucketKeys: Seq[String] = {
    val explicit = CoreOptions.BucketKey.get(options).getOrElse(Seq.empty)
    if (explicit.nonEmpty) explicit else trimmedPrimaryKeys
  }

  def toJson: String = {
    val f = JsonNodeFactory.instance
    val root = f.objectNode()
    root.put("version", version)
    root.put("id", id)
    val arr = root.putArray("fields")
    fields.foreach(df => arr.add(DataTypeJson.fieldToJson(df)))
    root.put("highestFieldId", highestFieldId)
    val pk = root.putArray("partitionKeys"); partitionKeys.foreach(pk.add)
    val pr = root.putArray("primaryKeys"); primaryKeys.foreach(pr.add)
    val opts = root.putObject("options")
    options.toSeq.sortBy(_._1).foreach { case (k, v) => opts.put(k, v) }
    comment.foreach(c => root.put("comment", c))
    root.put("timeMillis", timeMillis)
    TableSchema.Mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root)
  }
}

object TableSchema {
  val CurrentVersion = 3

  private[schema] val Mapper: ObjectMapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)

  /** Highest field id used by `fields`, nested row fields included. */
  def highestId(fields: Seq[DataField]): Int = {
    def of(t: DataType): Int = t match {
      case r: RowType => r.fields.map(f => math.max(f.id, of(f.dataType))).maxOption.getOrElse(-1)
      case a: ArrayType => of(a.element)
      case m: MapType => math.max(of(m.key), of(m.value))
      case _ => -1
    }
    fields.map(f => math.max(f.id, of(f.dataType))).maxOption.getOrElse(-1)
  }

  def fromJson(json: String, path: String): TableSchema = {
    val root: JsonNode =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "schema JSON", "unparsable text", e.getMessage, e) }
    def req(name: String): JsonNode = Option(root.get(name)).getOrElse(
      throw new CorruptFileException(path, 0, s"field '$name'", "missing"))
    try {
      val version = Option(root.get("version")).map(_.asInt).getOrElse(1)
      var options = Option(root.get("options")).map(_.fields().asScala.map(e => e.getKey -> e.getValue.asText).toMap)
        .getOrElse(Map.empty[String, String])
      // older Paimon versions had other defaults that their files rely on
      if (version <= 1 && !options.contains("bucket")) options += "bucket" -> "1"
      if (version <= 2 && !options.contains("file.format")) options += "file.format" -> "orc"
      TableSchema(
        id = req("id").asLong,
        fields = req("fields").elements().asScala.map(DataTypeJson.fieldFromJson).toSeq,
        highestFieldId = req("highestFieldId").asInt,
        partitionKeys = Option(root.get("partitionKeys")).map(_.elements().asScala.map(_.asText).toSeq).getOrElse(Nil),
        primaryKeys = Option(root.get("primaryKeys")).map(_.elements().asScala.map(_.asText).toSeq).getOrElse(Nil),
        options = options,
        comment = Option(root.get("comment")).filterNot(_.isNull).map(_.asText),
        timeMillis = Option(root.get("timeMillis")).map(_.asLong).getOrElse(0L),
        version = version)
    } catch {
      case e: CorruptFileException => throw e
      case e: Exception => throw new CorruptFileException(path, 0, "a valid schema", e.toString, "", e)
    }
  }
}
