package lamina.spark

import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{
  ArrayType => SparkArrayType,
  CalendarIntervalType,
  MapType => SparkMapType,
  StructType,
  VariantType => SparkVariantType
}

import lamina.errors.BadInputException
import lamina.mergetree.RecordExpiry
import lamina.mergetree.function.MergeFunctions
import lamina.table.bucket.DynamicBucketRules
import lamina.table.{ChangelogProducerRules, DeletionVectorRules, ExternalDataRoots}
import lamina.table.options.{CoreOptions, FileIndexOptions, UnsupportedFeatures}
import lamina.table.schema.TableSchema
import lamina.types.{DataField, SparkTypes}

/** Turns CREATE TABLE's columns, PARTITIONED BY and TBLPROPERTIES into schema-0, with every rule
 *  of Paimon's table model checked up front. */
object CreateTableSpec {

  /** Properties Spark adds by itself; they are not table options. */
  private val Reserved = Set("provider", "owner", "location", "comment", "external", "is_managed_location")

  def toSchema(table: String, schema: StructType, partitions: Array[Transform], props: Map[String, String]): TableSchema = {
    val options = props.collect {
      case (k, v) if k.startsWith("option.") => k.stripPrefix("option.") -> v
      case (k, v) if !Reserved.contains(k) => k -> v
    }
    CoreOptions.validate(options, table)
    props.get("location").foreach(l =>
      throw new BadInputException(
        s"Table $table: LOCATION '$l' is not supported: a table of this catalog lives in its database's directory of the warehouse"))
    if (props.get("provider").exists(p => !p.equalsIgnoreCase("lamina") && !p.equalsIgnoreCase("paimon")))
      throw new BadInputException(
        s"Table $table: provider '${props("provider")}' is not supported by this catalog; omit USING or use USING lamina")
    val names = schema.fieldNames.toSeq
    val dupes = names.groupBy(_.toLowerCase).collect { case (_, v) if v.size > 1 => v.head }
    if (dupes.nonEmpty) throw new BadInputException(s"Table $table has duplicate columns: ${dupes.mkString(", ")}")

    schema.fields.find(_.metadata.contains("CURRENT_DEFAULT")).foreach(f =>
      throw new BadInputException(s"Column '${f.name}' of table $table has a DEFAULT value; column defaults are not supported"))
    val partitionKeys = partitions.toSeq.map {
      case t if t.name() == "identity" && t.references().length == 1 => t.references().head.fieldNames().mkString(".")
      case other => throw new BadInputException(s"Table $table: only identity partitioning is supported, not ${other.describe()}")
    }
    partitionKeys.foreach(p =>
      if (!names.contains(p))
        throw new BadInputException(
          s"Partition column '$p' of table $table is not a column; columns are ${names.mkString(", ")}"))
    val primaryKeys = CoreOptions.PrimaryKey.get(options).getOrElse(Seq.empty)
    primaryKeys.foreach(p =>
      if (!names.contains(p))
        throw new BadInputException(
          s"Primary-key column '$p' of table $table is not a column; columns are ${names.mkString(", ")}"))
    val bucket = CoreOptions.Bucket.getOrDefault(options)
    // with dynamic buckets a key without a partition column moves between partitions (cross-partition upsert)
    if (primaryKeys.nonEmpty && bucket != -1) partitionKeys.foreach(p =>
      if (!primaryKeys.contains(p))
        throw new BadInputException(
          s"Partition column '$p' of table $table must be part of the primary key (${primaryKeys.mkString(", ")}) " +
            s"with 'bucket' = '$bucket'; a key that moves between partitions (cross-partition upsert) needs 'bucket' = '-1'"))
    if (bucket == 0 || bucket < -2 || (bucket == -2 && primaryKeys.isEmpty))
      throw BadInputException.invalidOption("bucket", bucket.toString,
        "use -1, a positive number, or -2 (postponed buckets) on a table with a primary key", Some(table))
    val bucketKeys = CoreOptions.BucketKey.get(options).getOrElse(Seq.empty)
    bucketKeys.foreach { b =>
      if (!names.contains(b)) throw new BadInputException(s"Bucket-key column '$b' of table $table is not a column")
      if (partitionKeys.contains(b))
        throw new BadInputException(s"Bucket-key column '$b' of table $table must not be a partition column")
      if (primaryKeys.nonEmpty && !primaryKeys.contains(b))
        throw new BadInputException(s"Bucket-key column '$b' of table $table must be part of the primary key")
    }
    if (primaryKeys.isEmpty && bucket > 0 && bucketKeys.isEmpty)
      throw new BadInputException(
        s"Table $table has 'bucket'='$bucket' but no 'bucket-key': a fixed-bucket table without primary key needs 'bucket-key'")
    if (bucket == -1 && bucketKeys.nonEmpty)
      throw new BadInputException(s"Table $table sets 'bucket-key' but 'bucket' is -1: set 'bucket' to a positive number")

    checkKeyTypes(table, schema, "Primary-key", primaryKeys)
    checkKeyTypes(table, schema, "Partition", partitionKeys)
    checkKeyTypes(table, schema, "Bucket-key", bucketKeys)

    var nextId = schema.fields.length
    val fields = schema.fields.toSeq.zipWithIndex.map { case (f, i) =>
      val nullable = f.nullable && !primaryKeys.contains(f.name)
      val t = SparkTypes.fromSparkField(f.copy(nullable = nullable), () => { val id = nextId; nextId += 1; id })
      DataField(i, f.name, t, f.getComment())
    }
    val schema0 = TableSchema(
      id = 0,
      fields = fields,
      highestFieldId = TableSchema.highestId(fields),
      partitionKeys = partitionKeys,
      primaryKeys = primaryKeys,
      options = options - CoreOptions.PrimaryKey.key,
      comment = props.get("comment"),
      timeMillis = System.currentTimeMillis())
    checkMergeEngine(schema0, table)
    schema0
  }

  /** Keys are compared, hashed and written into paths: only atomic types can be keys. */
  private def checkKeyTypes(table: String, schema: StructType, role: String, columns: Seq[String]): Unit =
    columns.foreach { c =>
      val t = schema(c).dataType
      val comparable = t match {
        case _: SparkArrayType | _: SparkMapType | _: StructType | _: SparkVariantType | _: CalendarIntervalType => false
        case _ => true
      }
      if (!comparable)
        throw new BadInputException(
          s"$role column '$c' of table $table has type ${t.sql}, which cannot be a key: use a column of an atomic type")
    }

  /** The merge engine's and the file indexes' options must make sense for the columns: checked before
   *  any file is written. */
  def checkMergeEngine(s: TableSchema, table: String): Unit = {
    UnsupportedFeatures.checkDefinition(table, s.options, s.primaryKeys.nonEmpty)
    DeletionVectorRules.check(s, table)
    ChangelogProducerRules.check(s, table)
    DynamicBucketRules.check(s, table)
    ExternalDataRoots.of(s.options, table)
    FileIndexOptions.spec(s.options, s.fields, table)
    RecordExpiry.of(s.options, s.fields, s.primaryKeys, table)
    if (s.primaryKeys.nonEmpty) MergeFunctions.create(s.fields, s.primaryKeys, s.options, table)
  }
}
