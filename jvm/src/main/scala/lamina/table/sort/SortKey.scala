package lamina.table.sort

import org.apache.spark.sql.catalyst.InternalRow

import lamina.errors.BadInputException
import lamina.table.schema.TableSchema
import lamina.types.{BinaryType, CharType, DataType, VarBinaryType, VarCharType}

/** The key a sort compaction orders an append table's rows by: for `order` the `order_by` columns in
 *  turn ([[OrderedBytes.exact]]), for `zorder` their Z-value over `width`-byte forms
 *  ([[OrderedBytes.fixed]], `zorder.var-length-contribution` for strings and binaries, 8 bytes for
 *  the rest), for `hilbert` their Hilbert index over 8-byte forms. Keys compare unsigned, byte by
 *  byte ([[OrderedBytes.Unsigned]]). Serializable: it runs in executors. */
final class SortKey private (val strategy: OrderStrategy, val columns: Seq[String], ordinals: Array[Int],
    types: Array[DataType], varWidth: Int)
  extends Serializable {

  def apply(row: InternalRow): Array[Byte] = strategy match {
    case OrderStrategy.Order =>
      val out = new java.io.ByteArrayOutputStream(16 * ordinals.length)
      var i = 0
      while (i < ordinals.length) { OrderedBytes.exact(row, ordinals(i), types(i), out); i += 1 }
      out.toByteArray
    case OrderStrategy.ZOrder =>
      ZOrder.interleave(Array.tabulate(ordinals.length)(i => OrderedBytes.fixed(row, ordinals(i), types(i), width(types(i)))))
    case OrderStrategy.Hilbert =>
      if (ordinals.length == 1) OrderedBytes.fixed(row, ordinals(0), types(0), 8)
      else HilbertCurve.index(Array.tabulate(ordinals.length)(i => OrderedBytes.coordinate(row, ordinals(i), types(i))))
    case OrderStrategy.NoOrder => Array.emptyByteArray
  }

  private def width(t: DataType): Int = t match {
    case _: CharType | _: VarCharType | _: BinaryType | _: VarBinaryType => varWidth
    case _ => 8
  }
}

object SortKey {

  /** The key of `strategy` over `orderBy` (comma-separated column names) of `schema`, None for `none`;
   *  refuses, naming the argument, what Paimon's sort compaction refuses: `order_by` with `none` or
   *  missing with another strategy, an unknown column, a partition column (the rows of a partition
   *  share it), a primary-key table, and columns without a natural order. */
  def of(schema: TableSchema, table: String, strategy: OrderStrategy, orderBy: String, varWidth: Int): Option[SortKey] = {
    val columns = orderBy.split(",").map(_.trim).filter(_.nonEmpty).toSeq
    if (strategy == OrderStrategy.NoOrder) {
      if (columns.nonEmpty)
        throw new BadInputException("order_strategy 'none' cannot be given order_by columns; use 'order', 'zorder' or 'hilbert'")
      return None
    }
    if (schema.primaryKeys.nonEmpty)
      throw new BadInputException(s"order_strategy '${strategy.name}' sorts append tables only: table $table has a " +
        s"primary key (${schema.primaryKeys.mkString(", ")}), whose files are sorted by it")
    if (columns.isEmpty)
      throw new BadInputException(s"order_strategy '${strategy.name}' needs order_by columns (comma-separated)")
    if (columns.distinct.size != columns.size)
      throw new BadInputException(s"order_by names a column twice: ${columns.mkString(", ")}")
    val fields = columns.map { c =>
      val f = schema.field(c).getOrElse(throw new BadInputException(
          s"order_by column '$c' is not a column of table $table; columns are ${schema.fieldNames.mkString(", ")}"))
      if (schema.partitionKeys.contains(c))
        throw new BadInputException(s"order_by column '$c' is a partition column of table $table: the rows of a " +
          "partition all share it, so ordering by it is meaningless")
      if (!OrderedBytes.supports(f.dataType))
        throw new BadInputException(s"order_by column '$c' has type ${f.dataType.asSQLString}, which has no order")
      f
    }
    Some(new SortKey(strategy, columns, columns.map(schema.indexOf).toArray, fields.map(_.dataType).toArray, varWidth))
  }
}
