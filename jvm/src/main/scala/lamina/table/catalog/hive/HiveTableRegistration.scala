package lamina.table.catalog.hive

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.metastore.TableType
import org.apache.hadoop.hive.metastore.api.{FieldSchema, SerDeInfo, StorageDescriptor, Table}

import lamina.table.catalog.TableProperties
import lamina.table.schema.TableSchema

/** How a table is registered in a Hive metastore, as Paimon's Hive catalog registers it, so that
 *  Paimon's catalog and Hive or Trino with Paimon's connector see Lamina's tables and the reverse:
 *  - parameters `table_type=PAIMON` and `storage_handler` = Paimon's storage handler;
 *  - the storage descriptor names Paimon's input and output formats and SerDe, and copies the
 *    columns (Hive type names, comments on one line and at most 255 characters);
 *  - the location is the storage descriptor's, or the `paimon_location` parameter with
 *    `location-in-properties=true`;
 *  - table options reach the parameters by `sync-all-properties`: all of them (with `primary-key`,
 *    `partition` and `bucket-key`), or else only `hive.`-prefixed ones (prefix removed) and
 *    `partition.expiration-time` and `data-file.path-directory`.
 *  The schema itself is read from the table's files; the metastore's copy is for other engines. */
object HiveTableRegistration {
  val TableTypeParam = "table_type"
  val PaimonTableType = "PAIMON"
  val StorageHandlerParam = "storage_handler"
  val StorageHandler = "org.apache.paimon.hive.PaimonStorageHandler"
  val InputFormat = "org.apache.paimon.hive.mapred.PaimonInputFormat"
  val OutputFormat = "org.apache.paimon.hive.mapred.PaimonOutputFormat"
  val SerDe = "org.apache.paimon.hive.PaimonSerDe"
  val LocationParam = "paimon_location"
  val CommentParam = "comment"
  val HivePrefix = "hive."
  private val AlwaysSynced = Seq("partition.expiration-time", "data-file.path-directory")
  private val MaxCommentLength = 255

  /** Whether a metastore table is one of Paimon's (by its input and output formats, as Paimon decides). */
  def isPaimonTable(t: Table): Boolean =
    t.getSd != null && t.getSd.getInputFormat == InputFormat && t.getSd.getOutputFormat == OutputFormat

  /** A new registration of `db.table` at `location` with `schema`. */
  def create(db: String, table: String, owner: String, schema: TableSchema, location: String,
      locationInProperties: Boolean, syncAll: Boolean): Table = {
    val now = (System.currentTimeMillis() / 1000).toInt
    val t = new Table()
    t.setDbName(db)
    t.setTableName(table)
    t.setOwner(owner)
    t.setCreateTime(now)
    t.setLastAccessTime(now)
    t.setRetention(Int.MaxValue)
    t.setPartitionKeys(new java.util.ArrayList[FieldSchema]())
    t.setTableType(TableType.MANAGED_TABLE.name())
    t.setParameters(new java.util.HashMap[String, String]())
    t.getParameters.put(TableTypeParam, PaimonTableType)
    t.getParameters.put(StorageHandlerParam, StorageHandler)
    update(t, schema, Set.empty, location, locationInProperties, syncAll)
    t
  }

  /** Brings `t` up to `schema` (columns, comment, synced options; `removed` options are taken out). */
  def update(t: Table, schema: TableSchema, removed: Set[String], location: String, locationInProperties: Boolean,
      syncAll: Boolean): Unit = {
    val params = t.getParameters
    params.putAll(syncedParameters(schema, syncAll).asJava)
    removed.foreach(params.remove)
    schema.comment.foreach(params.put(CommentParam, _))
    val sd = Option(t.getSd).getOrElse(new StorageDescriptor())
    sd.setInputFormat(InputFormat)
    sd.setOutputFormat(OutputFormat)
    val serde = Option(sd.getSerdeInfo).getOrElse(new SerDeInfo())
    serde.setSerializationLib(SerDe)
    serde.setParameters(new java.util.HashMap[String, String]())
    sd.setSerdeInfo(serde)
    sd.setCols(schema.fields.map { f =>
      new FieldSchema(f.name, HiveTypes.name(f.dataType), f.description.map(oneLineComment).orNull)
    }.asJava)
    if (locationInProperties) params.put(LocationParam, location) else sd.setLocation(location)
    t.setSd(sd)
  }

  /** Where the table's files are: the `paimon_location` parameter, else the storage descriptor's. */
  def location(t: Table): Option[String] =
    Option(t.getParameters).flatMap(p => Option(p.get(LocationParam)))
      .orElse(Option(t.getSd).flatMap(sd => Option(sd.getLocation)))
      .filter(_.nonEmpty)

  /** The table options copied into the metastore's parameters. */
  def syncedParameters(schema: TableSchema, syncAll: Boolean): Map[String, String] =
    if (syncAll) TableProperties.of(schema)
    else
      schema.options.collect { case (k, v) if k.startsWith(HivePrefix) => k.substring(HivePrefix.length) -> v } ++
        AlwaysSynced.flatMap(k => schema.options.get(k).map(k -> _))

  private def oneLineComment(c: String): String = {
    val line = c.replace('\n', ' ').replace('\r', ' ')
    if (line.length <= MaxCommentLength) line else line.substring(0, MaxCommentLength)
  }
}
