package lamina.table.sort

import lamina.errors.BadInputException

/** How a sort compaction orders an append table's rows (Paimon's `order_strategy`): `none` packs
 *  small files without sorting, `order` sorts by the `order_by` columns in turn, `zorder` and
 *  `hilbert` by a space-filling curve over them, so that each column alone bounds a file's rows. */
sealed abstract class OrderStrategy(val name: String)

object OrderStrategy {
  case object NoOrder extends OrderStrategy("none")
  case object Order extends OrderStrategy("order")
  case object ZOrder extends OrderStrategy("zorder")
  case object Hilbert extends OrderStrategy("hilbert")

  val All: Seq[OrderStrategy] = Seq(NoOrder, Order, ZOrder, Hilbert)

  /** Parses `order_strategy` (case-insensitive; blank is `none`). */
  def parse(text: String): OrderStrategy = {
    val t = text.trim.toLowerCase
    if (t.isEmpty) NoOrder
    else All.find(_.name == t).getOrElse(throw new BadInputException(
        s"Unknown order_strategy '${text.trim}': use ${All.map(s => s"'${s.name}'").mkString(", ")}"))
  }
}
