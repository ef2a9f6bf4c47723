package lamina.spark.read

import org.apache.spark.sql.connector.read._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import lamina.spark.MirrorColumns
import lamina.table.FileStoreTable
import lamina.table.scan.ScanMode

/** Collects column pruning, filters and LIMIT for a scan. Partition filters are exact (applied to
 *  the partition values of each file); other filters only skip files and row groups, so Spark
 *  re-applies them after the scan. */
class LaminaScanBuilder(table: FileStoreTable, snapshotId: Option[Long], fullSchema: StructType,
    mode: ScanMode = ScanMode.Normal, streamOptions: Map[String, String] = Map.empty)
  extends ScanBuilder with SupportsPushDownFilters with SupportsPushDownRequiredColumns with SupportsPushDownLimit {

  private var required: StructType = fullSchema
  private var filters: Array[Filter] = Array.empty
  private var limit: Option[Int] = None

  override def pushFilters(fs: Array[Filter]): Array[Filter] = {
    filters = if (mode == ScanMode.AuditLog) fs.filterNot(_.references.contains(ScanMode.RowKindColumn)) else fs
    val partitionKeys = table.schema.partitionKeys.toSet
    fs.filterNot(f => f.references.nonEmpty && f.references.forall(partitionKeys.contains) && filters.contains(f))
  }

  override def pushedFilters(): Array[Filter] = filters

  /** Prunes top-level columns only: a struct column is read whole, since the readers convert a
   *  file's structs to the current schema field by field (Spark projects the nested fields it
   *  wants from the scan's output). */
  override def pruneColumns(requiredSchema: StructType): Unit =
    required = StructType(requiredSchema.fields.map(f => fullSchema.fields.find(_.name == f.name).getOrElse(f)))

  override def pushLimit(n: Int): Boolean = { if (mode == ScanMode.Normal) limit = Some(n); mode == ScanMode.Normal }

  override def isPartiallyPushed: Boolean = true

  /** A scan of the required columns; metadata columns that mirror data columns
   *  ([[lamina.spark.MirrorColumns]]) are read as their data column. */
  override def build(): Scan = {
    val source = required.fields.map(f => MirrorColumns.source(f.name))
    if (source.forall(_.isEmpty))
      remember(new LaminaScan(table, snapshotId, required, filters.toSeq, limit, mode, streamOptions))
    else {
      val data = required.fields.zip(source).collect { case (f, None) => f }
      val mirrored = source.flatten.distinct.filterNot(c => data.exists(_.name == c)).map(c => fullSchema(c))
      val inner = StructType(data ++ mirrored)
      val ordinals = required.fields.zip(source).map { case (f, s) => inner.fieldIndex(s.getOrElse(f.name)) }
      new ProjectedScan(remember(new LaminaScan(table, snapshotId, inner, filters.toSeq, limit, mode)), required, ordinals)
    }
  }

  @volatile private var built: Option[LaminaScan] = None

  /** The scan this builder built last (a copy-on-write operation commits the files it planned). */
  def builtScan: Option[LaminaScan] = built

  private def remember(scan: LaminaScan): LaminaScan = { built = Some(scan); scan }
}
