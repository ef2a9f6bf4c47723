package lamina.table.schema

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper, SerializationFeature}
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}

import lamina.errors.{BadInputException, CorruptFileException}
import lamina.table.StrictJson
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

  /** Every field of a schema file in Paimon's spec. */
  val Fields: Set[String] =
    Set("version", "id", "fields", "highestFieldId", "partitionKeys", "primaryKeys", "options", "comment", "timeMillis")

  /** Options whose value lists columns of the table. */
  private val ColumnListOptions = Seq("bucket-key", "sequence.field", "rowkind.field")

  /** Parses strictly: the schema decides how data files are read (a table without its primary key
   *  would show every version of every row), so a field that is missing, of the wrong JSON type or
   *  misnamed, a key that names no column, a field id used twice, an option value the registry refuses
   *  or an option key one byte from a known one is a [[CorruptFileException]] naming the file. */
  def fromJson(json: String, path: String): TableSchema = {
    val root: JsonNode =
      try Mapper.readTree(json)
      catch { case e: Exception => throw new CorruptFileException(path, 0, "schema JSON", "unparsable text", e.getMessage, e) }
    if (root == null || !root.isObject) throw new CorruptFileException(path, 0, "a JSON object", "other text")
    val fieldsOf = new StrictJson(root, path, "schema")
    fieldsOf.refuseNearMisses(Fields)
    def corrupt(expected: String, actual: String, cause: Throwable = null) =
      new CorruptFileException(path, 0, expected, actual, "", cause)
    val version = fieldsOf.optInt("version").getOrElse(1)
    if (version < 1 || version > CurrentVersion) throw corrupt(s"schema version 1 to $CurrentVersion", version.toString)
    val optionsNode = fieldsOf.obj("options")
    var options = optionsNode.fields().asScala.map { e =>
      if (!e.getValue.isTextual) throw corrupt(s"option '${e.getKey}' to be a string", e.getValue.toString)
      e.getKey -> e.getValue.asText
    }.toMap
    // older Paimon versions had other defaults that their files rely on
    if (version <= 1 && !options.contains("bucket")) options += "bucket" -> "1"
    if (version <= 2 && !options.contains("file.format")) options += "file.format" -> "orc"
    val fields =
      try fieldsOf.array("fields").map(DataTypeJson.fieldFromJson)
      catch {
        case e: CorruptFileException => throw e
        case e: Exception => throw corrupt("valid field definitions", e.toString, e)
      }
    val schema = TableSchema(
      id = fieldsOf.long("id"),
      fields = fields,
      highestFieldId = fieldsOf.int("highestFieldId"),
      partitionKeys = fieldsOf.strings("partitionKeys"),
      primaryKeys = fieldsOf.strings("primaryKeys"),
      options = options,
      comment = fieldsOf.optText("comment"),
      timeMillis = fieldsOf.optLong("timeMillis").getOrElse(0L),
      version = version)
    validate(schema, path)
    schema
  }

  private def validate(s: TableSchema, path: String): Unit = {
    def corrupt(expected: String, actual: String) = new CorruptFileException(path, 0, expected, actual)
    if (s.id < 0) throw corrupt("a schema id of at least 0", s.id.toString)
    val ids = allIds(s.fields)
    ids.groupBy(identity).collectFirst { case (id, n) if n.size > 1 => id }.foreach(id =>
      throw corrupt("distinct field ids", s"id $id used twice"))
    if (ids.exists(_ > s.highestFieldId))
      throw corrupt(s"field ids up to highestFieldId ${s.highestFieldId}", s"id ${ids.max}")
    val names = s.fieldNames.toSet
    def columns(what: String, cols: Seq[String]): Unit = {
      cols.find(c => !names.contains(c)).foreach(c => throw corrupt(s"$what naming columns", s"'$c', which is no column"))
      if (cols.distinct.size != cols.size) throw corrupt(s"$what without repeats", cols.mkString(", "))
    }
    columns("partitionKeys", s.partitionKeys)
    columns("primaryKeys", s.primaryKeys)
    s.options.foreach { case (k, v) =>
      CoreOptions.nearMiss(k).foreach(known => throw corrupt(s"option keys Lamina knows (is '$k' a damaged '$known'?)", s"'$k'"))
      CoreOptions.find(k).foreach { d =>
        try d.parseOrFail(v)
        catch {
          case e: BadInputException => throw new CorruptFileException(path, 0, s"a valid value of option '$k'", s"'$v'", "", e)
        }
      }
      if (ColumnListOptions.contains(k)) columns(s"option '$k'", v.split(",").map(_.trim).filter(_.nonEmpty).toSeq)
      if (k.startsWith("fields.") && k != "fields.default-aggregate-function") {
        // fields.<column>[,<column>...].<suffix>
        val rest = k.stripPrefix("fields.")
        columns(s"option '$k'", rest.take(math.max(0, rest.lastIndexOf('.'))).split(",").map(_.trim).toSeq)
        if (k.endsWith(".sequence-group")) columns(s"option '$k'", v.split(",").map(_.trim).filter(_.nonEmpty).toSeq)
      }
    }
  }

  /** Every field id, nested ones too. */
  private def allIds(fields: Seq[DataField]): Seq[Int] = {
    def of(t: DataType): Seq[Int] = t match {
      case r: RowType => allIds(r.fields)
      case a: ArrayType => of(a.element)
      case m: MapType => of(m.key) ++ of(m.value)
      case _ => Nil
    }
    fields.flatMap(f => f.id +: of(f.dataType))
  }
}
