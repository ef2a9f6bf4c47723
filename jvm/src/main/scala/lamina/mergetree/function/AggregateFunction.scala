package lamina.mergetree.function

/** An aggregate function of the aggregation merge engine (`fields.<f>.aggregate-function`), with the
 *  traits the rules of row-level DML ([[DmlRules]]) and retraction ask of it. The one place the
 *  functions' names are spelled; [[FieldAggregator.create]] builds each one's implementation.
 *
 *  - `retracts`: it applies -U and -D records (Paimon: sum, product, collect, merge_map, nested_update
 *    and the two "last" functions); the others fail on them unless `fields.<f>.ignore-retract` is set.
 *  - `replaces`: folding a new value in replaces the old one, so an UPDATE may assign the column.
 *  - [[idempotent]]: folding the column's current value in again leaves it unchanged, so an UPDATE
 *    that rewrites the whole row does not count the column twice.
 *
 *  Paimon 1.4 has no `count` function (it removed it in 0.9): a table naming it would not open in
 *  Paimon, so Lamina does not define it either. */
sealed abstract class AggregateFunction(val name: String, val retracts: Boolean, val replaces: Boolean,
    alwaysIdempotent: Boolean) {

  /** Whether feeding the current value again leaves it unchanged; `distinct` is `fields.<f>.distinct`,
   *  which makes collect and listagg drop a repeated element. */
  def idempotent(distinct: Boolean): Boolean = alwaysIdempotent

  override def toString: String = name
}

object AggregateFunction {
  case object Sum extends AggregateFunction("sum", retracts = true, replaces = false, alwaysIdempotent = false)
  case object Product extends AggregateFunction("product", retracts = true, replaces = false, alwaysIdempotent = false)
  case object Min extends AggregateFunction("min", retracts = false, replaces = false, alwaysIdempotent = true)
  case object Max extends AggregateFunction("max", retracts = false, replaces = false, alwaysIdempotent = true)
  case object LastValue extends AggregateFunction("last_value", retracts = true, replaces = true, alwaysIdempotent = true)
  case object LastNonNullValue
    extends AggregateFunction("last_non_null_value", retracts = true, replaces = true, alwaysIdempotent = true)
  case object FirstValue extends AggregateFunction("first_value", retracts = false, replaces = false, alwaysIdempotent = true)
  case object FirstNonNullValue
    extends AggregateFunction("first_non_null_value", retracts = false, replaces = false, alwaysIdempotent = true)
  case object BoolAnd extends AggregateFunction("bool_and", retracts = false, replaces = false, alwaysIdempotent = true)
  case object BoolOr extends AggregateFunction("bool_or", retracts = false, replaces = false, alwaysIdempotent = true)
  case object MergeMap extends AggregateFunction("merge_map", retracts = true, replaces = false, alwaysIdempotent = true)

  /** Not idempotent: a NULL value of the first map fed is kept, and feeding it again removes its key. */
  case object MergeMapWithKeyTime
    extends AggregateFunction("merge_map_with_keytime", retracts = false, replaces = false, alwaysIdempotent = false)

  /** The unions of serialized sets and sketches in BYTES columns. */
  case object RoaringBitmap32 extends AggregateFunction("rbm32", retracts = false, replaces = false, alwaysIdempotent = true)
  case object RoaringBitmap64 extends AggregateFunction("rbm64", retracts = false, replaces = false, alwaysIdempotent = true)
  case object HllSketch extends AggregateFunction("hll_sketch", retracts = false, replaces = false, alwaysIdempotent = true)
  case object ThetaSketch extends AggregateFunction("theta_sketch", retracts = false, replaces = false, alwaysIdempotent = true)

  /** Not idempotent: without `nested-key` it appends the elements again; with it, the first array fed
   *  is kept as it is, and feeding it again folds its elements of one key into one. */
  case object NestedUpdate extends AggregateFunction("nested_update", retracts = true, replaces = false, alwaysIdempotent = false)

  /** Not idempotent either: the first array fed is kept as it is, and feeding it again folds its rows of
   *  one key into one. */
  case object NestedPartialUpdate
    extends AggregateFunction("nested_partial_update", retracts = false, replaces = false, alwaysIdempotent = false)

  case object ListAgg extends AggregateFunction("listagg", retracts = false, replaces = false, alwaysIdempotent = false) {
    override def idempotent(distinct: Boolean): Boolean = distinct
  }

  case object Collect extends AggregateFunction("collect", retracts = true, replaces = false, alwaysIdempotent = false) {
    override def idempotent(distinct: Boolean): Boolean = distinct
  }

  /** The default function of a column the options name none for. */
  val Default: AggregateFunction = LastNonNullValue

  val All: Seq[AggregateFunction] =
    Seq(Sum, Min, Max, LastValue, LastNonNullValue, FirstValue, FirstNonNullValue, Product, BoolAnd, BoolOr, ListAgg,
      Collect, MergeMap, MergeMapWithKeyTime, NestedUpdate, NestedPartialUpdate, RoaringBitmap32, RoaringBitmap64, HllSketch,
      ThetaSketch)

  /** Names Paimon still accepts for a function it renamed. */
  private val LegacyNames: Map[String, AggregateFunction] = Map("first_not_null_value" -> FirstNonNullValue)

  /** The function an option's text names (case and surrounding blanks ignored), if any. */
  def parse(text: String): Option[AggregateFunction] = {
    val t = text.trim.toLowerCase
    All.find(_.name == t).orElse(LegacyNames.get(t))
  }
}
