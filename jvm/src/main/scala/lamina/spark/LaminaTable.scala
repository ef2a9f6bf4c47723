package lamina.spark

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{
  LogicalWriteInfo,
  RowLevelOperation,
  RowLevelOperationBuilder,
  RowLevelOperationInfo,
  WriteBuilder
}
import org.apache.spark.sql.sources.{AlwaysTrue, Filter}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import lamina.errors.BadInputException
import lamina.spark.read.LaminaScanBuilder
import lamina.table.scan.ScanMode
import lamina.spark.write.{LaminaWriteBuilder, WriteModes}
import lamina.table.FileStoreTable
import lamina.table.commit.CommitOperation
import lamina.table.branch.BranchManager
import lamina.table.options.{CoreOptions, TableOperation}
import lamina.table.predicate.PredicateEval
import lamina.table.sink.TableWriter
import lamina.types.{DataField, SparkTypes}

/** A Lamina table as Spark sees it, at the latest snapshot or pinned to one (time travel).
 *  When pinned, schema and reads are those of the pinned snapshot; writes are refused. */
class LaminaTable(val table: FileStoreTable, val pinnedSnapshot: Option[Long], protected val displayName: String)
  extends Table with SupportsRead with SupportsWrite with TruncatableTable with SupportsRowLevelOperations with SupportsDelete
  with SupportsMetadataColumns with PartitionManagement {

  override protected def managedTable: FileStoreTable = table
  override protected def pinnedSnapshotId: Option[Long] = pinnedSnapshot
  override protected def checkWritable(): Unit = requireWritable()

  override def metadataColumns(): Array[MetadataColumn] = MirrorColumns.of(readTable) ++ RowPositionColumns.of(readTable)

  /** The schema the pinned snapshot was written with (the latest schema otherwise). */
  lazy val readTable: FileStoreTable = pinnedSnapshot match {
    case Some(id) => table.atSchemaOf(table.snapshotManager.snapshot(id))
    case None => table
  }

  override def name(): String = displayName

  override def schema(): StructType = LaminaTable.userSchema(readTable.schema.fields)

  override def partitioning(): Array[Transform] =
    readTable.schema.partitionKeys.map(k => ColumnReferences.identity(k)).toArray

  override def properties(): util.Map[String, String] = {
    val s = readTable.schema
    val props = s.options ++
      (if (s.primaryKeys.nonEmpty) Map(CoreOptions.PrimaryKey.key -> s.primaryKeys.mkString(",")) else Map.empty) ++
      s.comment.map("comment" -> _) ++ Map("provider" -> "lamina", "path" -> table.path.toString)
    props.asJava
  }

  override def capabilities(): util.Set[TableCapability] = Set(
    TableCapability.BATCH_READ, TableCapability.BATCH_WRITE, TableCapability.TRUNCATE,
    TableCapability.OVERWRITE_BY_FILTER, TableCapability.OVERWRITE_DYNAMIC, TableCapability.MICRO_BATCH_READ,
    TableCapability.STREAMING_WRITE).asJava

  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = {
    val dynamic = OptionScopes.dynamic(displayName, options.asCaseSensitiveMap().asScala.toMap, "read")
    val branch = CoreOptions.Branch.explicit(dynamic).map(BranchManager.normalize).filter(_ != table.branch)
    if (branch.nonEmpty) {
      if (pinnedSnapshot.nonEmpty)
        throw new BadInputException(s"Table $displayName is read as of snapshot ${pinnedSnapshot.get}; " +
          s"time travel and the '${CoreOptions.Branch.key}' option cannot be combined (read ${table.baseName}$$branch_<name> " +
          "with VERSION AS OF)")
      return new LaminaTable(table.onBranch(branch.get), None, displayName).newScanBuilder(options)
    }
    val scanKeys = LaminaTable.ScanKeys
    // a query or session that names a scan option overrides both the table's and the time travel's
    val explicit = dynamic.filter { case (k, _) => scanKeys.contains(k) }
    val pinned =
      if (explicit.nonEmpty)
        TimeTravel.resolve(table, CoreOptions.ScanSnapshotId.get(explicit), CoreOptions.ScanTimestampMillis.get(explicit))
      else if (pinnedSnapshot.isDefined) pinnedSnapshot
      else TimeTravel.resolve(table, CoreOptions.ScanSnapshotId.get(table.options),
        CoreOptions.ScanTimestampMillis.get(table.options))
    val t = if (pinned == pinnedSnapshot) this else new LaminaTable(table, pinned, displayName)
    t.readTable.require(TableOperation.Read)
    // a streaming read starts where the scan options say (`scan.mode`), rather than time-travelling
    new LaminaScanBuilder(t.readTable.withDynamicOptions(dynamic -- scanKeys), pinned, t.schema(), streamOptions = dynamic)
  }

  /** The scan of a DELETE, UPDATE or MERGE of an append table: the latest snapshot, pinned now, with the
   *  query's and session's read options but no time travel ([[ScanMode.RowLevel]]). */
  def newRowLevelScanBuilder(options: CaseInsensitiveStringMap): LaminaScanBuilder = {
    val dynamic = OptionScopes.dynamic(displayName, options.asCaseSensitiveMap().asScala.toMap, "read")
    table.require(TableOperation.Read)
    new LaminaScanBuilder(table.withDynamicOptions(dynamic -- LaminaTable.ScanKeys), table.snapshotManager.latestId(),
      schema(), ScanMode.RowLevel)
  }

  /** A write option `branch` writes that branch (the table's own name names it too: `t$branch_b`). */
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    requireWritable()
    val branch = CoreOptions.Branch.explicit(OptionScopes.dynamic(displayName, info.options().asCaseSensitiveMap().asScala.toMap,
        "write"))
    new LaminaWriteBuilder(branch.fold(table)(table.onBranch), info)
  }

  override def truncateTable(): Boolean = {
    requireWritable()
    TableWriter.commitOverwrite(table, Seq.empty, None, operation = CommitOperation.Truncate)
    true
  }

  /** A DELETE whose condition only names partition columns drops whole partitions (any merge
   *  engine, any table); other DELETEs go through the row-level path. */
  override def canDeleteWhere(filters: Array[Filter]): Boolean = {
    val real = filters.filterNot(_.isInstanceOf[AlwaysTrue])
    pinnedSnapshot.isEmpty && (real.isEmpty || table.schema.partitionKeys.nonEmpty &&
      real.forall(f =>
        f.references.nonEmpty && f.references.forall(table.schema.partitionKeys.contains) &&
          PredicateEval.supported(SparkFilters.toPredicate(f))))
  }

  override def deleteWhere(filters: Array[Filter]): Unit = {
    requireWritable()
    TableWriter.commitOverwrite(table, Seq.empty,
      WriteModes.partitionFilter(
        table, filters.toSeq.filterNot(_.isInstanceOf[AlwaysTrue])), operation = CommitOperation.Delete)
  }

  /** Primary-key tables: delta-based (records written into the LSM tree); append tables with
   *  deletion vectors: delta-based (rows marked in vectors); other append tables: copy-on-write (the
   *  files holding affected rows rewritten). */
  override def newRowLevelOperationBuilder(info: RowLevelOperationInfo): RowLevelOperationBuilder = {
    requireWritable()
    if (table.isPrimaryKeyTable) new LaminaRowLevelOperationBuilder(this, info)
    else new RowLevelOperationBuilder {
      override def build(): RowLevelOperation =
        if (table.capabilities.deletionVectors) new LaminaDeletionVectorOperation(LaminaTable.this, info.command())
        else new LaminaCopyOnWriteOperation(LaminaTable.this, info.command())
    }
  }

  private def requireWritable(): Unit = {
    table.require(TableOperation.Write)
    table.requireSafeCommits()
    if (pinnedSnapshot.isDefined)
      throw new BadInputException(
        s"Table $displayName is read as of snapshot ${pinnedSnapshot.get}; time-travel reads cannot be written")
  }
}

object LaminaTable {

  /** The read options that pick a snapshot (time travel). */
  val ScanKeys: Seq[String] = Seq(CoreOptions.ScanSnapshotId.key, CoreOptions.ScanTimestampMillis.key)

  /** The schema users see: comments kept, internal metadata (field ids) dropped. CHAR(n) and
   *  VARCHAR(n) are STRING to Spark, as in Paimon's Spark connector (Spark 4.0's optimizer fails on
   *  writes of queries into tables mixing its CHAR/VARCHAR types with STRUCT columns); Lamina's writer
   *  enforces their lengths and pads CHAR values itself ([[lamina.spark.write.CharVarcharRules]]). */
  def userSchema(fields: Seq[DataField]): StructType =
    StructType(SparkTypes.toSparkStruct(fields).fields.map { f =>
      f.copy(dataType = stripNested(f.dataType), metadata = userMetadata(f.metadata))
    })

  private def stripNested(t: org.apache.spark.sql.types.DataType): org.apache.spark.sql.types.DataType = {
    import org.apache.spark.sql.{types => st}
    t match {
      case s: st.StructType =>
        st.StructType(s.fields.map(f => f.copy(dataType = stripNested(f.dataType), metadata = userMetadata(f.metadata))))
      case a: st.ArrayType => a.copy(elementType = stripNested(a.elementType))
      case m: st.MapType => m.copy(keyType = stripNested(m.keyType), valueType = stripNested(m.valueType))
      case other => other
    }
  }

  /** Keeps only the metadata a user should see in the table schema (comments). */
  def userMetadata(m: org.apache.spark.sql.types.Metadata): org.apache.spark.sql.types.Metadata = {
    val b = new org.apache.spark.sql.types.MetadataBuilder()
    if (m.contains("comment")) b.putString("comment", m.getString("comment"))
    b.build()
  }
}
