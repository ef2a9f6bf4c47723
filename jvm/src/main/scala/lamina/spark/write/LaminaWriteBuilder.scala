package lamina.spark.write

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.write._
import org.apache.spark.sql.sources.{AlwaysTrue, Filter}

import lamina.errors.BadInputException
import lamina.spark.SparkFilters
import lamina.table.FileStoreTable
import lamina.table.predicate.PredicateEval
import lamina.table.scan.DataSplit
import lamina.types.SparkTypes

/** What kind of write a query asked for: append, overwrite of the partitions a filter selects,
 *  overwrite of the partitions the new data touches (dynamic), or the replacement of the files a
 *  copy-on-write DELETE, UPDATE or MERGE `read` (known once its scan ran, on the driver), or the
 *  marking of rows of those files in deletion vectors. */
sealed trait WriteMode extends Serializable
object WriteMode {
  case object Append extends WriteMode
  final case class OverwriteByFilter(filters: Seq[Filter]) extends WriteMode
  case object OverwriteDynamic extends WriteMode
  final case class CopyOnWrite(read: () => Seq[DataSplit], onlyRemovesRows: Boolean) extends WriteMode

  /** A DELETE, UPDATE or MERGE of an append table with deletion vectors: rows of the files `read`
   *  marked deleted, new rows appended. */
  final case class MarkDeleted(read: () => Seq[DataSplit]) extends WriteMode
}

class LaminaWriteBuilder(table: FileStoreTable, info: LogicalWriteInfo)
  extends WriteBuilder with SupportsTruncate with SupportsOverwrite with SupportsDynamicOverwrite {

  private var mode: WriteMode = WriteMode.Append

  override def truncate(): WriteBuilder = { mode = WriteMode.OverwriteByFilter(Seq.empty); this }

  override def overwrite(filters: Array[Filter]): WriteBuilder = {
    val keys = table.schema.partitionKeys.toSet
    val real = filters.toSeq.filterNot(_.isInstanceOf[AlwaysTrue])
    real.foreach { f =>
      if (!PredicateEval.supported(SparkFilters.toPredicate(f)))
        throw new BadInputException(s"INSERT OVERWRITE of table ${table.name}: partition condition $f is not supported")
      if (!f.references.forall(keys.contains))
        throw new BadInputException(
          s"INSERT OVERWRITE of table ${table.name} can only filter on partition columns (${keys.mkString(", ")}), not $f")
    }
    mode = WriteMode.OverwriteByFilter(real)
    this
  }

  override def overwriteDynamicPartitions(): WriteBuilder = { mode = WriteMode.OverwriteDynamic; this }

  override def build(): Write = new LaminaWrite(table, info, mode)
}

object WriteModes {

  /** The partition predicate an overwrite applies to live files; None means every partition. */
  def partitionFilter(table: FileStoreTable, filters: Seq[Filter]): Option[InternalRow => Boolean] = {
    if (filters.isEmpty) return None
    val keys = table.schema.partitionKeys
    val types = table.schema.partitionTypes.map(SparkTypes.toSpark)
    // an answer the evaluator cannot give fails the statement rather than guess which data to drop
    Some(row =>
      filters.forall(f =>
        PredicateEval.eval(SparkFilters.toPredicate(f),
          name => {
            val i = keys.indexOf(name)
            if (i < 0) None else Some((row.get(i, types(i)), types(i)))
          }).getOrElse(throw new BadInputException(
            s"Cannot evaluate partition condition $f on a partition of table ${table.name}"))))
  }
}
