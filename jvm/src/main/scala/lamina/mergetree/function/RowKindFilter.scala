package lamina.mergetree.function

import lamina.mergetree.RowKind
import lamina.table.options.CoreOptions

/** Which records of a write's input, by kind, reach the table (Paimon's filter of written row kinds):
 *  with `ignore-delete` no retract (-D, -U), with `ignore-update-before` no -U. A dropped record is
 *  gone before merging and before the input changelog; changelogs that compaction produces are not
 *  filtered. Invariant: inserts and update-afters are always kept. */
final case class RowKindFilter(ignoreRetracts: Boolean, ignoreUpdateBefore: Boolean) {
  def keeps(kind: Byte): Boolean =
    if (kind == RowKind.Delete) !ignoreRetracts
    else if (kind == RowKind.UpdateBefore) !ignoreRetracts && !ignoreUpdateBefore
    else true
}

object RowKindFilter {

  /** The filter of a table's options; a bad value fails naming the table and the option. */
  def of(options: Map[String, String], table: String): RowKindFilter =
    RowKindFilter(CoreOptions.IgnoreDelete.ofTable(options, table), CoreOptions.IgnoreUpdateBefore.ofTable(options, table))
}
