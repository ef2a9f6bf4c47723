package lamina.spark.read

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.types.UTF8String

import lamina.mergetree.RowKind
import lamina.table.scan.ScanMode

/** The rows of `$audit_log`: the `rowkind` column of `outputSchema` filled with a record's kind
 *  (+I, -U, +U, -D), the others with the record's values in order. One mutable row, reused. */
final class AuditRow(outputSchema: StructType) {
  private val kindAt = outputSchema.fieldNames.indexOf(ScanMode.RowKindColumn)
  private val types = outputSchema.fields.filterNot(_.name == ScanMode.RowKindColumn).map(_.dataType)
  private val out = new GenericInternalRow(outputSchema.size)
  private val kinds = Array.tabulate(4)(k => UTF8String.fromString(RowKind.shortString(k.toByte)))

  def of(kind: Byte, values: InternalRow): InternalRow = {
    var j = 0
    var i = 0
    while (i < out.numFields) {
      if (i == kindAt) out.update(i, kinds(kind))
      else { out.update(i, if (values.isNullAt(j)) null else values.get(j, types(j))); j += 1 }
      i += 1
    }
    out
  }
}
