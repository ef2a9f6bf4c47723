package lamina.spark.system

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.NotFoundException
import lamina.format.BinaryRowCodec
import lamina.spark.LaminaTable
import lamina.table.scan.ScanMode
import lamina.table.{FileStoreTable, PartitionValues}
import lamina.table.commit.{CommitOperation, RowCounts}
import lamina.table.consumer.ConsumerManager
import lamina.table.options.CoreOptions
import lamina.table.manifest.ManifestEntry
import lamina.table.scan.{FileStoreScan, SnapshotDeletionFiles}
import lamina.table.snapshot.Snapshot
import lamina.table.stats.StatisticsFile
import lamina.types.{DataType => LaminaType, DataTypeJson, SparkTypes}

/** The `<table>$<kind>` metadata tables, with Apache Paimon's column names. */
object SystemTables {
  val Kinds: Seq[String] = Seq("snapshots", "schemas", "options", "files", "manifests", "partitions", "buckets",
    "table_indexes", "audit_log", "binlog", "ro", "tags", "consumers", "branches", "statistics", "detail")

  def isKnown(kind: String): Boolean = Kinds.contains(kind.toLowerCase)

  def load(kind: String, table: FileStoreTable, pinned: Option[Long], display: String): Table = kind.toLowerCase match {
    case "snapshots" =>
      new SystemTableBase(display) {
        override def schema(): StructType = SnapshotsSchema
        override def rows(): Seq[InternalRow] = rows(SnapshotsSchema)
        // the file counts read each snapshot's delta manifests: only when a query asks for them
        override def rows(required: StructType): Seq[InternalRow] = {
          val withFiles = required.fieldNames.exists(DeltaFileColumns.contains)
          table.snapshotManager.all().map(snapshotRow(table, _, withFiles))
        }
      }
    case "schemas" => simple(display, SchemasSchema,
        () =>
          table.schemaManager.all().map { s =>
            row(s.id, str(s.fields.map(f => DataTypeJson.fieldToJson(f).toString).mkString("[", ",", "]")),
              str(json(s.partitionKeys)), str(json(s.primaryKeys)),
              str(s.options.toSeq.sortBy(_._1).map { case (k, v) => s"\"$k\":\"$v\"" }.mkString("{", ",", "}")),
              s.comment.map(str).orNull, micros(s.timeMillis))
          })
    case "options" => simple(display, OptionsSchema,
        () =>
          table.schema.options.toSeq.sortBy(_._1).map { case (k, v) => row(str(k), str(v)) })
    case "files" => simple(display, FilesSchema, () => filesRows(table, pinned))
    case "detail" => simple(display, DetailSchema, () => Seq(detailRow(table, pinned)))
    case "manifests" => simple(display, ManifestsSchema,
        () =>
          current(table, pinned).toSeq.flatMap { s =>
            val store = table.manifestStore
            (store.readList(s.baseManifestList) ++ store.readList(s.deltaManifestList)).map(m =>
              row(str(m.fileName), m.fileSize, m.numAddedFiles, m.numDeletedFiles, m.schemaId))
          })
    case "partitions" => simple(display, PartitionsSchema, () => partitionsRows(table, pinned))
    case "buckets" => simple(display, BucketsSchema, () => bucketsRows(table, pinned))
    case "tags" => simple(display, TagsSchema,
        () =>
          table.snapshotManager.tags.all().map { case (name, t) =>
            row(str(name), t.snapshot.id, t.snapshot.schemaId, micros(t.snapshot.timeMillis),
              t.snapshot.totalRecordCount.map(Long.box).orNull,
              t.createTime.map(c => Long.box(DateTimeUtils.localDateTimeToMicros(c))).orNull,
              t.timeRetained.map(d => str(d.toString)).orNull)
          })
    case "consumers" => simple(display, ConsumersSchema,
        () => ConsumerManager.of(table).all().map { case (id, c, _) => row(str(id), c.nextSnapshot) })
    case "branches" => simple(display, BranchesSchema,
        () => {
          val branches = table.branchManager
          branches.names().map(n => row(str(n), micros(branches.createTimeMillis(n))))
        })
    case "table_indexes" => simple(display, TableIndexesSchema, () => tableIndexesRows(table, pinned))
    case "statistics" => simple(display, StatisticsSchema,
        () =>
          current(table, pinned).flatMap(new StatisticsFile(table).of).toSeq.map { st =>
            row(st.snapshotId, st.schemaId, st.mergedRecordCount.map(Long.box).orNull,
              st.mergedRecordSize.map(Long.box).orNull, str(st.colStatsText))
          })
    case "audit_log" => new ScanModeTable(new LaminaTable(table, pinned, display), ScanMode.AuditLog, display)
    case "binlog" =>
      new BinlogTable(new ScanModeTable(new LaminaTable(table, pinned, display), ScanMode.AuditLog, display), display)
    case "ro" => new ScanModeTable(new LaminaTable(table, pinned, display), ScanMode.ReadOptimized, display)
    case other => throw new NotFoundException(
        s"Unknown system table '$other' of ${table.name}; known: ${Kinds.mkString(", ")}")
  }

  private def simple(display: String, s: StructType, f: () => Seq[InternalRow]): Table =
    new SystemTableBase(display) {
      override def schema(): StructType = s
      override def rows(): Seq[InternalRow] = f()
    }

  private def current(table: FileStoreTable, pinned: Option[Long]): Option[Snapshot] =
    pinned.map(table.snapshotManager.snapshot).orElse(table.snapshotManager.latest())

  private def liveEntries(table: FileStoreTable, pinned: Option[Long]): Seq[ManifestEntry] =
    current(table, pinned).toSeq.flatMap(s => new FileStoreScan(table, s).liveEntries())

  /** One row describing the table, as Delta's DESCRIBE DETAIL: name, location, keys, bucket, merge
   *  engine, file format, schema, the snapshot read and its kind, record count, live data files. */
  private def detailRow(table: FileStoreTable, pinned: Option[Long]): InternalRow = {
    val snapshot = current(table, pinned)
    val live = liveEntries(table, pinned)
    row(str(table.name), str(table.path.toString), str(table.schema.primaryKeys.mkString(",")),
      str(table.schema.partitionKeys.mkString(",")), CoreOptions.Bucket.getOrDefault(table.options),
      if (table.isPrimaryKeyTable) str(table.capabilities.mergeEngine.name) else null, str(table.fileFormat.name),
      table.schema.id, snapshot.map(s => Long.box(s.id)).orNull, snapshot.map(s => str(s.commitKind)).orNull,
      snapshot.flatMap(_.totalRecordCount).map(Long.box).orNull, live.size.toLong, live.map(_.file.fileSize).sum)
  }

  private def filesRows(table: FileStoreTable, pinned: Option[Long]): Seq[InternalRow] = {
    val store = table.manifestStore
    val keys = table.schema.partitionKeys
    val ptypes = table.schema.partitionTypes
    val snapshot = current(table, pinned)
    val live = snapshot.toSeq.flatMap(s => new FileStoreScan(table, s).liveEntries())
    // the rows each file's deletion vector deletes (null: no vector, or a table without vectors)
    val deleted: Map[String, Long] =
      if (!table.capabilities.deletionVectors) Map.empty
      else snapshot.toSeq.flatMap(s => SnapshotDeletionFiles.of(table, s, live, wholeTable = true).values.flatten)
        .flatMap { case (name, d) => d.range.cardinality.map(name -> _) }.toMap
    live.map { e =>
      val f = e.file
      val part = store.decodePartition(e.partition)
      val fileSchema = if (f.schemaId == table.schema.id) table.schema else table.schemaManager.schema(f.schemaId)
      val cols = f.valueStatsCols.getOrElse(fileSchema.fieldNames)
      val types = cols.flatMap(fileSchema.field).map(_.dataType)
      def statText(bytes: Array[Byte]): String =
        if (cols.isEmpty || bytes == null) "{}"
        else
          try {
            val r = BinaryRowCodec.deserialize(bytes, types)
            cols.indices.map { i =>
              val v = if (r.isNullAt(i)) "null" else String.valueOf(r.get(i, SparkTypes.toSpark(types(i))))
              s"${cols(i)}=$v"
            }.mkString("{", ", ", "}")
          } catch { case _: Exception => "{}" }
      val nulls =
        cols.indices.map(i => s"${cols(i)}=${f.valueStats.nullCounts.lift(i).flatten.map(_.toString).getOrElse("null")}")
          .mkString("{", ", ", "}")
      row(str(partitionText(part, keys, ptypes)), e.bucket,
        str(table.paths.dataFile(part, e.bucket, f).toString), str(f.fileFormat), f.schemaId, f.level,
        f.rowCount, f.fileSize, str(keyText(table, f.minKey)), str(keyText(table, f.maxKey)), str(nulls),
        str(statText(f.valueStats.minValues)), str(statText(f.valueStats.maxValues)),
        f.minSequenceNumber, f.maxSequenceNumber, f.creationTimeMillis.map(micros).orNull,
        deleted.get(f.fileName).map(Long.box).orNull)
    }
  }

  private def keyText(table: FileStoreTable, bytes: Array[Byte]): String = {
    val keys = table.schema.trimmedPrimaryKeys
    if (keys.isEmpty || bytes == null) "[]"
    else
      try {
        val types = keys.map(k => table.schema.field(k).get.dataType)
        val r = BinaryRowCodec.deserialize(bytes, types)
        keys.indices.map(i => if (r.isNullAt(i)) "null" else String.valueOf(r.get(i, SparkTypes.toSpark(types(i))))).mkString("[",
          ", ", "]")
      } catch { case _: Exception => "[]" }
  }

  private def partitionsRows(table: FileStoreTable, pinned: Option[Long]): Seq[InternalRow] = {
    val store = table.manifestStore
    val keys = table.schema.partitionKeys
    val ptypes = table.schema.partitionTypes
    liveEntries(table, pinned).groupBy(e => java.nio.ByteBuffer.wrap(e.partition)).toSeq.map { case (_, es) =>
      val part = store.decodePartition(es.head.partition)
      row(str(partitionText(part, keys, ptypes)), es.map(_.file.rowCount).sum, es.map(_.file.fileSize).sum,
        es.size.toLong, es.flatMap(_.file.creationTimeMillis).maxOption.map(micros).orNull)
    }.sortBy(_.getUTF8String(0).toString)
  }

  private def bucketsRows(table: FileStoreTable, pinned: Option[Long]): Seq[InternalRow] = {
    val store = table.manifestStore
    val keys = table.schema.partitionKeys
    val ptypes = table.schema.partitionTypes
    liveEntries(table, pinned).groupBy(e => (java.nio.ByteBuffer.wrap(e.partition), e.bucket)).toSeq.map { case (_, es) =>
      val part = store.decodePartition(es.head.partition)
      row(str(partitionText(part, keys, ptypes)), es.head.bucket, es.map(_.file.rowCount).sum, es.map(_.file.fileSize).sum,
        es.size.toLong, es.flatMap(_.file.creationTimeMillis).maxOption.map(micros).orNull)
    }.sortBy(r => (r.getUTF8String(0).toString, r.getInt(1)))
  }

  /** The index files of the snapshot's index manifest (deletion vectors among them), as Paimon's
   *  `$table_indexes` shows them. */
  private def tableIndexesRows(table: FileStoreTable, pinned: Option[Long]): Seq[InternalRow] = {
    val store = table.manifestStore
    val keys = table.schema.partitionKeys
    val ptypes = table.schema.partitionTypes
    current(table, pinned).flatMap(_.indexManifest).toSeq.flatMap(store.readIndexManifest).map { e =>
      val f = e.indexFile
      val ranges = f.dvRanges.map { rs =>
        ArrayData.toArrayData(rs.map { r =>
          row(str(r.dataFileName), r.offset, r.length, r.cardinality.map(Long.box).orNull)
        }.toArray)
      }
      row(str(partitionText(store.decodePartition(e.partition), keys, ptypes)), e.bucket, str(f.indexType),
        str(f.fileName), f.fileSize, f.rowCount, ranges.orNull)
    }.sortBy(r => (r.getUTF8String(0).toString, r.getInt(1), r.getUTF8String(3).toString))
  }

  private def partitionText(part: InternalRow, keys: Seq[String], types: Seq[LaminaType]): String =
    if (keys.isEmpty) "{}" else PartitionValues.describe(part, keys, types)

  /** Paimon's columns, then what the commit's delta did: data files added and removed (a compaction
   *  removes the files it rewrites and adds its output) and the rows they hold; then the operation and
   *  the rows it inserted, updated, deleted and upserted where its writer knew them ([[RowCounts]]). */
  private val DeltaFileColumns = Set("added_files", "removed_files", "added_records", "removed_records")

  private def snapshotRow(table: FileStoreTable, s: Snapshot, withFiles: Boolean): InternalRow = {
    val store = table.manifestStore
    val delta =
      if (withFiles) store.readList(s.deltaManifestList).flatMap(m => store.readManifest(m.fileName)) else Nil
    val (added, removed) = delta.partition(_.isAdd)
    val rows = RowCounts.of(s.properties).values.map(_.map(Long.box).orNull)
    row(Seq(s.id, s.schemaId, str(s.commitUser), s.commitIdentifier, str(s.commitKind), micros(s.timeMillis),
        str(s.baseManifestList), str(s.deltaManifestList), s.changelogManifestList.map(str).orNull,
        s.totalRecordCount.map(Long.box).orNull, s.deltaRecordCount, s.changelogRecordCount.map(Long.box).orNull,
        s.watermark.map(Long.box).orNull, added.size.toLong, removed.size.toLong, added.map(_.file.rowCount).sum,
        removed.map(_.file.rowCount).sum, str(CommitOperation.of(s.properties, s.commitKind))) ++ rows: _*)
  }

  private def row(values: Any*): InternalRow = new GenericInternalRow(values.map {
    case i: Int => i
    case l: Long => l
    case other => other
  }.toArray)
  private def str(s: String): UTF8String = UTF8String.fromString(s)
  private def micros(ms: Long): java.lang.Long = ms * 1000L
  private def json(xs: Seq[String]): String = xs.map(x => "\"" + x + "\"").mkString("[", ",", "]")

  private def schema(fields: (String, DataType, Boolean)*): StructType =
    StructType(fields.map { case (n, t, nullable) => StructField(n, t, nullable) })

  val SnapshotsSchema: StructType = schema(
    ("snapshot_id", LongType, false), ("schema_id", LongType, false), ("commit_user", StringType, false),
    ("commit_identifier", LongType, false), ("commit_kind", StringType, false), ("commit_time", TimestampNTZType, false),
    ("base_manifest_list", StringType, false), ("delta_manifest_list", StringType, false),
    ("changelog_manifest_list", StringType, true), ("total_record_count", LongType, true), ("delta_record_count", LongType, true),
    ("changelog_record_count", LongType, true), ("watermark", LongType, true), ("added_files", LongType, false),
    ("removed_files", LongType, false), ("added_records", LongType, false), ("removed_records", LongType, false),
    ("operation", StringType, false), ("inserted_rows", LongType, true), ("updated_rows", LongType, true),
    ("deleted_rows", LongType, true), ("upserted_rows", LongType, true))
  val TagsSchema: StructType = schema(
    ("tag_name", StringType, false), ("snapshot_id", LongType, false), ("schema_id", LongType, false),
    ("commit_time", TimestampNTZType, false), ("record_count", LongType, true), ("create_time", TimestampNTZType, true),
    ("time_retained", StringType, true))
  val BranchesSchema: StructType = schema(("branch_name", StringType, false), ("create_time", TimestampNTZType, false))
  val SchemasSchema: StructType = schema(
    ("schema_id", LongType, false), ("fields", StringType, false), ("partition_keys", StringType, false),
    ("primary_keys", StringType, false), ("options", StringType, false), ("comment", StringType, true),
    ("update_time", TimestampNTZType, false))
  val DetailSchema: StructType = schema(
    ("name", StringType, false), ("location", StringType, false), ("primary_keys", StringType, false),
    ("partition_keys", StringType, false), ("bucket", IntegerType, false), ("merge_engine", StringType, true),
    ("file_format", StringType, false), ("schema_id", LongType, false), ("latest_snapshot_id", LongType, true),
    ("latest_commit_kind", StringType, true), ("record_count", LongType, true), ("num_files", LongType, false),
    ("size_in_bytes", LongType, false))
  val OptionsSchema: StructType = schema(("key", StringType, false), ("value", StringType, false))
  val ConsumersSchema: StructType = schema(("consumer_id", StringType, false), ("next_snapshot_id", LongType, false))
  val FilesSchema: StructType = schema(
    ("partition", StringType, true), ("bucket", IntegerType, false), ("file_path", StringType, false),
    ("file_format", StringType, false), ("schema_id", LongType, false), ("level", IntegerType, false),
    ("record_count", LongType, false), ("file_size_in_bytes", LongType, false), ("min_key", StringType, true),
    ("max_key", StringType, true), ("null_value_counts", StringType, false), ("min_value_stats", StringType, false),
    ("max_value_stats", StringType, false), ("min_sequence_number", LongType, true), ("max_sequence_number", LongType, true),
    ("creation_time", TimestampNTZType, true), ("deletion_vector_cardinality", LongType, true))
  val ManifestsSchema: StructType = schema(
    ("file_name", StringType, false), ("file_size", LongType, false), ("num_added_files", LongType, false),
    ("num_deleted_files", LongType, false), ("schema_id", LongType, false))
  val BucketsSchema: StructType = schema(
    ("partition", StringType, true), ("bucket", IntegerType, false), ("record_count", LongType, false),
    ("file_size_in_bytes", LongType, false), ("file_count", LongType, false), ("last_update_time", TimestampNTZType, true))
  val StatisticsSchema: StructType = schema(("snapshot_id", LongType, false), ("schema_id", LongType, false),
    ("mergedRecordCount", LongType, true), ("mergedRecordSize", LongType, true), ("colstat", StringType, true))
  val TableIndexesSchema: StructType = schema(
    ("partition", StringType, true), ("bucket", IntegerType, false), ("index_type", StringType, false),
    ("file_name", StringType, false), ("file_size", LongType, false), ("row_count", LongType, false),
    ("dv_ranges",
      ArrayType(schema(("f0", StringType, false), ("f1", IntegerType, false), ("f2", IntegerType, false),
          ("_CARDINALITY", LongType, true)), containsNull = true), true))
  val PartitionsSchema: StructType = schema(
    ("partition", StringType, true), ("record_count", LongType, false), ("file_size_in_bytes", LongType, false),
    ("file_count", LongType, false), ("last_update_time", TimestampNTZType, true))
}
