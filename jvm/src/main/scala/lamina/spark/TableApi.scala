package lamina.spark

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.connector.catalog.{Identifier, TableChange}
import org.apache.spark.sql.functions.{col, desc}
import org.apache.spark.sql.types.{DataType, StringType, StructField, StructType}

import lamina.api.{Branching, Partitions, Snapshots, Tagging}
import lamina.errors.{AlreadyExistsException, BadInputException, NotFoundException}
import lamina.table.branch.BranchManager
import lamina.table.options.CoreOptions

/** What the Python package's `LaminaTable` calls through py4j: one call per Python method, plain
 *  Java values and Spark's own Dataset and Column in and out. A table is named `db.t` within a Lamina
 *  catalog of the session. */
object TableApi {

  private def identifier(table: String): Identifier = table.split('.') match {
    case Array(db, t) if db.nonEmpty && t.nonEmpty => Identifier.of(Array(db), t)
    case _ => throw new BadInputException(s"A table name must be 'database.table', got '$table'")
  }

  private def quote(part: String): String = "`" + part.replace("`", "``") + "`"

  /** `catalog`.`db`.`t`, with an optional `$suffix` on the table's name (a system table). */
  private def qualified(catalogName: String, table: String, suffix: String = ""): String = {
    val id = identifier(table)
    (Seq(catalogName) ++ id.namespace() :+ (id.name() + suffix)).map(quote).mkString(".")
  }

  private def load(spark: SparkSession, catalogName: String, table: String) = {
    val id = identifier(table)
    SessionApi.catalog(spark, catalogName).laminaWarehouse.loadTable(id.namespace().head, id.name())
  }

  def exists(spark: SparkSession, catalogName: String, table: String): Boolean =
    SessionApi.catalog(spark, catalogName).tableExists(identifier(table))

  /** Fails, naming the table, unless it exists. */
  def require(spark: SparkSession, catalogName: String, table: String): Unit =
    if (!exists(spark, catalogName, table)) throw new NotFoundException(s"Table $catalogName.$table does not exist")

  /** The table's rows (of `branch`, null: main): the latest snapshot, or the one `version` (a snapshot
   *  id or a tag name) or `timestamp` (Spark's timestamp text) names. */
  def read(spark: SparkSession, catalogName: String, table: String, version: String, timestamp: String,
      branch: String): DataFrame = {
    require(spark, catalogName, table)
    if (branch != null) load(spark, catalogName, table).branchManager.requireExists(branch)
    val reader = spark.read
    if (version != null) reader.option("versionAsOf", version)
    if (timestamp != null) reader.option("timestampAsOf", timestamp)
    reader.table(qualified(catalogName, table, Option(branch).map("$" + BranchManager.SuffixPrefix + _).getOrElse("")))
  }

  /** The changes between two snapshots or tags (`start` exclusive, `end` inclusive, as Paimon's
   *  `incremental-between`), each row with its `rowkind`: the table's `$audit_log` read incrementally,
   *  in `scanMode` (auto, delta, changelog, diff; null: auto). */
  def readChanges(spark: SparkSession, catalogName: String, table: String, start: String, end: String,
      scanMode: String): DataFrame = {
    require(spark, catalogName, table)
    val reader = spark.read.option("incremental-between", s"$start,$end")
    if (scanMode != null) reader.option("incremental-between-scan-mode", scanMode)
    reader.table(qualified(catalogName, table, "$audit_log"))
  }

  /** The table's snapshots, newest first (`limit` < 1: all). */
  def history(spark: SparkSession, catalogName: String, table: String, limit: Int): DataFrame = {
    require(spark, catalogName, table)
    val all = spark.table(qualified(catalogName, table, "$snapshots")).orderBy(desc("snapshot_id"))
    if (limit > 0) all.limit(limit) else all
  }

  /** The table's schemas, oldest first. */
  def schemaHistory(spark: SparkSession, catalogName: String, table: String): DataFrame = {
    require(spark, catalogName, table)
    spark.table(qualified(catalogName, table, "$schemas")).orderBy(col("schema_id"))
  }

  /** One row describing the table: name, location, keys, format, the latest snapshot, sizes. */
  def detail(spark: SparkSession, catalogName: String, table: String): DataFrame = {
    require(spark, catalogName, table)
    val t = load(spark, catalogName, table)
    val latest = t.snapshotManager.latest()
    val files = spark.table(qualified(catalogName, table, "$files"))
    val (fileCount, bytes) = {
      val r = files.selectExpr("count(*)", "coalesce(sum(file_size_in_bytes), 0)").head()
      (r.getLong(0), r.getLong(1))
    }
    val values = Seq(
      "name" -> s"$catalogName.$table",
      "location" -> t.path.toString,
      "primary_keys" -> t.schema.primaryKeys.mkString(","),
      "partition_keys" -> t.schema.partitionKeys.mkString(","),
      "bucket" -> CoreOptions.Bucket.getOrDefault(t.options).toString,
      "merge_engine" -> (if (t.isPrimaryKeyTable) t.capabilities.mergeEngine.name else ""),
      "file_format" -> t.fileFormat.name,
      "schema_id" -> t.schema.id.toString,
      "latest_snapshot_id" -> latest.map(_.id.toString).orNull,
      "latest_commit_kind" -> latest.map(_.commitKind).orNull,
      "record_count" -> latest.flatMap(_.totalRecordCount).map(_.toString).orNull,
      "num_files" -> fileCount.toString,
      "size_in_bytes" -> bytes.toString)
    val schema = StructType(values.map { case (k, _) => StructField(k, StringType) })
    spark.createDataFrame(java.util.List.of(Row.fromSeq(values.map(_._2))), schema)
  }

  /** The options the table's schema stores. */
  def options(spark: SparkSession, catalogName: String, table: String): java.util.Map[String, String] = {
    require(spark, catalogName, table)
    load(spark, catalogName, table).schema.options.asJava
  }

  /** ALTER TABLE ... SET TBLPROPERTIES (checked as that statement checks them). */
  def setOptions(spark: SparkSession, catalogName: String, table: String, options: java.util.Map[String, String]): Unit = {
    require(spark, catalogName, table)
    val changes = options.asScala.toSeq.sortBy(_._1).map { case (k, v) => TableChange.setProperty(k, v) }
    SessionApi.catalog(spark, catalogName).alterTable(identifier(table), changes: _*)
  }

  /** ALTER TABLE ... UNSET TBLPROPERTIES. */
  def unsetOptions(spark: SparkSession, catalogName: String, table: String, keys: java.util.List[String]): Unit = {
    require(spark, catalogName, table)
    val changes = keys.asScala.toSeq.map(k => TableChange.removeProperty(k))
    SessionApi.catalog(spark, catalogName).alterTable(identifier(table), changes: _*)
  }

  /** DELETE FROM the table WHERE `condition` (a SQL expression; null: every row). */
  def delete(spark: SparkSession, catalogName: String, table: String, condition: String): Unit = {
    require(spark, catalogName, table)
    spark.sql(s"DELETE FROM ${qualified(catalogName, table)}" + where(condition)).collect()
  }

  /** UPDATE the table SET column = expression (SQL expressions) WHERE `condition` (null: every row). */
  def update(spark: SparkSession, catalogName: String, table: String, condition: String,
      assignments: java.util.Map[String, String]): Unit = {
    require(spark, catalogName, table)
    if (assignments.isEmpty)
      throw new BadInputException(s"An update of table $catalogName.$table needs at least one column to set")
    val set = assignments.asScala.toSeq.sortBy(_._1).map { case (c, e) => s"${quote(c)} = ($e)" }.mkString(", ")
    spark.sql(s"UPDATE ${qualified(catalogName, table)} SET $set" + where(condition)).collect()
  }

  private def where(condition: String): String = Option(condition).map(c => s" WHERE ($c)").getOrElse("")

  private def warehouse(spark: SparkSession, catalogName: String) = SessionApi.catalog(spark, catalogName).laminaWarehouse

  private def optInt(v: java.lang.Integer): Option[Int] = Option(v).map(_.intValue())

  /** Expires snapshots under the table's retention options, each non-null argument replacing its
   *  option (`sys.expire_snapshots`); how many snapshots expired. */
  def expireSnapshots(spark: SparkSession, catalogName: String, table: String, retainMax: java.lang.Integer,
      retainMin: java.lang.Integer, olderThan: String, maxDeletes: java.lang.Integer): Int = {
    require(spark, catalogName, table)
    Snapshots.expire(warehouse(spark, catalogName), table, optInt(retainMax), optInt(retainMin), Option(olderThan),
      optInt(maxDeletes), zone = SessionZone(spark))
  }

  /** Tags a snapshot (the latest when `snapshotId` is null), kept for `timeRetained` (`7 d`; null: for
   *  ever); the tagged snapshot's id. */
  def createTag(spark: SparkSession, catalogName: String, table: String, tag: String, snapshotId: java.lang.Long,
      timeRetained: String): Long = {
    require(spark, catalogName, table)
    Tagging.create(warehouse(spark, catalogName), table, tag, Option(snapshotId).map(_.longValue()), Option(timeRetained))
  }

  def deleteTag(spark: SparkSession, catalogName: String, table: String, tag: String): Unit = {
    require(spark, catalogName, table)
    Tagging.delete(warehouse(spark, catalogName), table, tag)
  }

  /** `sys.expire_tags`: the names of the tags deleted. */
  def expireTags(spark: SparkSession, catalogName: String, table: String, olderThan: String): java.util.List[String] = {
    require(spark, catalogName, table)
    Tagging.expire(warehouse(spark, catalogName), table, Option(olderThan), SessionZone(spark)).asJava
  }

  /** The table's tags (the `$tags` system table). */
  def tags(spark: SparkSession, catalogName: String, table: String): DataFrame = {
    require(spark, catalogName, table)
    spark.table(qualified(catalogName, table, "$tags"))
  }

  /** `sys.expire_partitions`: each null argument takes the table's option; the partitions dropped. */
  def expirePartitions(spark: SparkSession, catalogName: String, table: String, expirationTime: String,
      timestampFormatter: String, timestampPattern: String, expireStrategy: String,
      maxExpires: java.lang.Integer): java.util.List[String] = {
    require(spark, catalogName, table)
    Partitions.expire(warehouse(spark, catalogName), table, Option(expirationTime), Option(timestampFormatter),
      Option(timestampPattern), Option(expireStrategy), optInt(maxExpires)).asJava
  }

  /** `sys.create_branch`: from tag `tag`, or empty with the current schema when `tag` is null. */
  def createBranch(spark: SparkSession, catalogName: String, table: String, branch: String, tag: String): Unit = {
    require(spark, catalogName, table)
    Branching.create(warehouse(spark, catalogName), table, branch, Option(tag))
  }

  def deleteBranch(spark: SparkSession, catalogName: String, table: String, branch: String): Unit = {
    require(spark, catalogName, table)
    Branching.delete(warehouse(spark, catalogName), table, branch)
  }

  /** `sys.fast_forward`: the main branch becomes `branch`. */
  def fastForward(spark: SparkSession, catalogName: String, table: String, branch: String): Unit = {
    require(spark, catalogName, table)
    Branching.fastForward(warehouse(spark, catalogName), table, branch)
  }

  /** The table's branches (the `$branches` system table). */
  def branches(spark: SparkSession, catalogName: String, table: String): DataFrame = {
    require(spark, catalogName, table)
    spark.table(qualified(catalogName, table, "$branches"))
  }

  /** Removes (or with `dryRun` counts) the files no snapshot or tag refers to, last modified before
   *  `olderThan` (null: a day ago); [count, total bytes]. */
  def removeOrphanFiles(spark: SparkSession, catalogName: String, table: String, olderThan: String,
      dryRun: Boolean): Array[Long] = {
    require(spark, catalogName, table)
    val (count, bytes) =
      Snapshots.removeOrphanFiles(warehouse(spark, catalogName), table, Option(olderThan), dryRun,
        zone = SessionZone(spark))
    Array(count, bytes)
  }

  /** Rolls the table back to `version` (a snapshot id or a tag name); the snapshot id now latest. */
  def rollback(spark: SparkSession, catalogName: String, table: String, version: String): Long = {
    require(spark, catalogName, table)
    Snapshots.rollback(warehouse(spark, catalogName), table, version)._2
  }

  /** Rolls the table back to its latest snapshot committed at or before `timestampMillis`. */
  def rollbackToTimestamp(spark: SparkSession, catalogName: String, table: String, timestampMillis: Long): Long = {
    require(spark, catalogName, table)
    Snapshots.rollbackToTimestamp(warehouse(spark, catalogName), table, timestampMillis)._2
  }

  /** CREATE TABLE, by `mode`: `create` (fails when the table exists), `if_not_exists` (leaves it), or
   *  `replace` (CREATE OR REPLACE TABLE: drops it, with its history, first). `columns` are (name, Spark
   *  SQL type, nullable, comment or null); `primaryKey` and `partitionedBy` name columns; `properties`
   *  are table options. Checked as the SQL statement is. Whether the table was created (false: it
   *  existed and was left). */
  def create(spark: SparkSession, catalogName: String, table: String, columns: java.util.List[java.util.List[Object]],
      primaryKey: java.util.List[String], partitionedBy: java.util.List[String],
      properties: java.util.Map[String, String], comment: String, mode: String): Boolean = {
    val catalog = SessionApi.catalog(spark, catalogName)
    val id = identifier(table)
    if (!Set("create", "if_not_exists", "replace").contains(mode))
      throw new BadInputException(s"mode must be create, if_not_exists or replace, got '$mode'")
    if (catalog.tableExists(id)) mode match {
      case "if_not_exists" => return false
      case "replace" => catalog.dropTable(id)
      case _ => throw new AlreadyExistsException(s"Table $catalogName.$table already exists")
    }
    if (columns.isEmpty) throw new BadInputException(s"Table $catalogName.$table needs at least one column")
    val fields = columns.asScala.toSeq.map { c =>
      val Seq(name, sqlType, nullable, columnComment) = c.asScala.toSeq
      val dataType =
        try DataType.fromDDL(sqlType.toString)
        catch {
          case e: Exception =>
            throw new BadInputException(s"Column '$name' of table $catalogName.$table: '$sqlType' is not a SQL type", e)
        }
      val field = StructField(name.toString, dataType, nullable.asInstanceOf[java.lang.Boolean].booleanValue())
      Option(columnComment).fold(field)(text => field.withComment(text.toString))
    }
    val props = properties.asScala.toMap ++
      (if (primaryKey.isEmpty) Map.empty else Map("primary-key" -> primaryKey.asScala.mkString(","))) ++
      Option(comment).map("comment" -> _)
    val partitions = partitionedBy.asScala.toArray.map(ColumnReferences.identity)
    catalog.createTable(id, StructType(fields), partitions, props.asJava)
    true
  }

  /** MERGE INTO the table (as `targetAlias`) USING `source` (as `sourceAlias`) ON `condition`, with
   *  `clauses` in order: the statement SQL MERGE INTO is, so the plan is the same (the source is a
   *  temporary view for the statement's duration). */
  def merge(spark: SparkSession, catalogName: String, table: String, source: DataFrame, targetAlias: String,
      sourceAlias: String, condition: String, clauses: java.util.List[MergeClause]): Unit = {
    require(spark, catalogName, table)
    if (clauses.isEmpty)
      throw new BadInputException(s"A merge into table $catalogName.$table needs at least one WHEN clause")
    val view = "lamina_merge_source_" + java.util.UUID.randomUUID().toString.replace("-", "")
    source.createOrReplaceTempView(view)
    try {
      spark.sql(s"MERGE INTO ${qualified(catalogName, table)} AS ${quote(targetAlias)} USING ${quote(view)} AS " +
        s"${quote(sourceAlias)} ON ($condition) " + clauses.asScala.map(_.sql).mkString(" ")).collect()
    } finally spark.catalog.dropTempView(view)
  }

  /** Builds a merge clause: `kind` is one of [[MergeClause.Kinds]]; `condition` may be null; the
   *  assignments (target column -> SQL expression) are used by the update and insert kinds. */
  def mergeClause(kind: String, condition: String, assignments: java.util.Map[String, String]): MergeClause =
    MergeClause(kind, Option(condition), assignments.asScala.toMap)
}
