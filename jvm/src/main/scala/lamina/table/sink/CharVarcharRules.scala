package lamina.table.sink

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.types.UTF8String

import lamina.errors.BadInputException
import lamina.table.schema.TableSchema
import lamina.types.{CharType, SparkTypes, VarCharType}

/** Length rules of top-level CHAR(n) and VARCHAR(n) columns, applied to each written row: a value
 *  longer than n characters is refused (trailing spaces beyond n are trimmed first, as SQL does);
 *  CHAR values are right-padded with spaces to n. */
final class CharVarcharRules(schema: TableSchema, table: String) extends Serializable {
  private val rules: Array[(Int, Int, Boolean)] = schema.fields.zipWithIndex.collect {
    case (f, i) if f.dataType.isInstanceOf[CharType] => (i, f.dataType.asInstanceOf[CharType].length, true)
    case (f, i) if f.dataType.isInstanceOf[VarCharType] && f.dataType.asInstanceOf[VarCharType].length != VarCharType.MaxLength =>
      (i, f.dataType.asInstanceOf[VarCharType].length, false)
  }.toArray
  private val sparkTypes = schema.fields.map(f => SparkTypes.toSpark(f.dataType)).toArray

  def isEmpty: Boolean = rules.isEmpty

  def apply(row: InternalRow): InternalRow = {
    var out: GenericInternalRow = null
    rules.foreach { case (i, n, isChar) =>
      if (!row.isNullAt(i)) {
        var v = row.getUTF8String(i)
        if (v.numChars() > n) {
          val trimmed = v.trimRight()
          if (trimmed.numChars() > n)
            throw new BadInputException(
              s"Value of ${v.numChars()} characters exceeds the length limitation of column '${schema.fields(i).name}' " +
                s"${schema.fields(i).dataType.asSQLString} in table $table")
          v = UTF8String.fromString(trimmed.toString + " " * (n - trimmed.numChars())).substring(0, n)
          out = copyOf(row, out); out.update(i, v)
        } else if (isChar && v.numChars() < n) {
          out = copyOf(row, out); out.update(i, UTF8String.fromString(v.toString + " " * (n - v.numChars())))
        }
      }
    }
    if (out == null) row else out
  }

  private def copyOf(row: InternalRow, existing: GenericInternalRow): GenericInternalRow =
    if (existing != null) existing
    else new GenericInternalRow(sparkTypes.indices.map(j => if (row.isNullAt(j)) null else row.get(j, sparkTypes(j))).toArray)
}
