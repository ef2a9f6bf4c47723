package lamina.table.options

/** Which value of a table's `sequence.field` makes a record the later one (table option
 *  [[CoreOptions.SequenceFieldSortOrder]], Paimon's values). Either way a NULL sequence value orders
 *  first (the record loses to any record with a value), and records with equal values order by the
 *  sequence number they were written with. */
sealed abstract class SequenceSortOrder(name: String) extends EnumValue(name)

object SequenceSortOrder {

  /** The record with the largest sequence value is the later one. */
  case object Ascending extends SequenceSortOrder("ascending")

  /** The record with the smallest sequence value is the later one. */
  case object Descending extends SequenceSortOrder("descending")

  val All: Seq[SequenceSortOrder] = Seq(Ascending, Descending)
}
