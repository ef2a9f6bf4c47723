package lamina.spark

import org.apache.spark.sql.{Column, SparkSession}
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter
import org.apache.spark.sql.functions.{approx_count_distinct, avg, ceil, col, count, length, lit, max, min, sum, when}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import lamina.errors.BadInputException
import lamina.format.PaimonOrdering
import lamina.spark.procedures.{LaminaProcedure, ProcedureArgs}
import lamina.table.FileStoreTable
import lamina.table.catalog.Metastore
import lamina.table.scan.FileStoreScan
import lamina.table.stats.{ColStats, Statistics, StatisticsFile, StatsValues}
import lamina.types.{BinaryType, CharType, DataField, SparkTypes, VarBinaryType, VarCharType}

/** Computes a [[Statistics]] of the table's latest snapshot with one Spark aggregation over that
 *  snapshot (the row count; per column requested: estimated distinct count, NULL count, min and max
 *  where [[StatsValues.hasMinMax]], average and maximum length) and records it in an ANALYZE snapshot
 *  ([[StatisticsFile.commit]]). NOSCAN reads no rows: the record count is the snapshot's, for append
 *  tables only (a primary-key table's rows are known after merging). */
final class AnalyzeTableCall(catalog: LaminaCatalog, table: FileStoreTable, nameParts: Seq[String],
    columns: Option[Seq[String]], allColumns: Boolean, noScan: Boolean)
  extends LaminaProcedure(catalog) {
  override def name(): String = "analyze_table"
  override def description(): String = s"ANALYZE TABLE ${table.name}"
  override def parameters(): Array[ProcedureParameter] = Array.empty
  override protected def output: StructType = new StructType()

  override protected def run(args: ProcedureArgs, warehouse: Metastore): Seq[InternalRow] = {
    val spark = SparkSession.active
    val snapshot = table.snapshotManager.latest().getOrElse(return Seq.empty)
    val fields = requested(spark.sessionState.conf)
    val files = new FileStoreScan(table, snapshot).plan().flatMap(_.files)
    val totalRecords = snapshot.totalRecordCount.getOrElse(files.map(_.rowCount).sum)
    val totalSize = files.map(_.fileSize).sum
    val (merged, colStats) =
      if (noScan) (if (table.isPrimaryKeyTable) None else Some(totalRecords), Map.empty[String, ColStats])
      else scan(spark, snapshot.id, fields)
    val size = merged.map(m => if (totalRecords == 0) 0L else (totalSize.toDouble * m / totalRecords).toLong)
    new StatisticsFile(table).commit(Statistics(snapshot.id, snapshot.schemaId, merged, size.orElse(Some(totalSize)),
        colStats))
    Seq.empty
  }

  /** The columns to analyse: named ones must exist and have atomic types; ALL COLUMNS leaves out
   *  nested and variant columns, which have no statistics. */
  private def requested(conf: SQLConf): Seq[DataField] = {
    val schema = table.schema
    if (allColumns) schema.fields.filter(f => PaimonOrdering.isOrdered(f.dataType))
    else columns.getOrElse(Seq.empty).map { c =>
      val f = schema.fields.find(f => conf.resolver(f.name, c)).getOrElse(throw new BadInputException(
          s"ANALYZE TABLE ${table.name} FOR COLUMNS: '$c' is not a column; columns are ${schema.fieldNames.mkString(", ")}"))
      if (!PaimonOrdering.isOrdered(f.dataType))
        throw new BadInputException(s"ANALYZE TABLE ${table.name} FOR COLUMNS: column '${f.name}' has type " +
          s"${f.dataType.asSQLString}, which has no statistics")
      f
    }
  }

  private def scan(spark: SparkSession, snapshotId: Long, fields: Seq[DataField]): (Option[Long], Map[String, ColStats]) = {
    val name = nameParts.map(p => s"`${p.replace("`", "``")}`").mkString(".")
    val df = spark.read.option("scan.snapshot-id", snapshotId.toString).table(name)
    val ndvError = spark.sessionState.conf.ndvMaxError
    val perColumn: Seq[Seq[Column]] = fields.map { f =>
      val c = col(s"`${f.name.replace("`", "``")}`")
      Seq(approx_count_distinct(c, ndvError), sum(when(c.isNull, 1L).otherwise(0L))) ++
        (if (StatsValues.hasMinMax(f.dataType)) Seq(min(c), max(c)) else Nil) ++
        (if (variableLength(f)) Seq(ceil(avg(length(c))), max(length(c))) else Nil)
    }
    val all = count(lit(1)) +: perColumn.flatten
    val r = df.agg(all.head, all.tail: _*).collect().head
    var i = 1
    def next(): Any = { val v = r.get(i); i += 1; v }
    def long(v: Any): Option[Long] = Option(v).map(_.asInstanceOf[Number].longValue)
    val stats = fields.map { f =>
      val distinct = long(next())
      val nulls = long(next())
      val (lo, hi) =
        if (StatsValues.hasMinMax(f.dataType)) {
          def print(v: Any) = Option(v).map(x => StatsValues.print(f.dataType, CatalystTypeConverters.convertToCatalyst(x)))
          (print(next()), print(next()))
        } else (None, None)
      val (avgLen, maxLen) =
        if (variableLength(f)) (long(next()), long(next()))
        else { val size = Some(SparkTypes.toSpark(f.dataType).defaultSize.toLong); (size, size) }
      f.name -> ColStats(f.id, distinct, lo, hi, nulls, avgLen, maxLen)
    }
    (Some(r.getLong(0)), stats.toMap)
  }

  private def variableLength(f: DataField): Boolean = f.dataType match {
    case _: VarCharType | _: CharType | _: VarBinaryType | _: BinaryType => true
    case _ => false
  }
}
