package lamina.spark

import org.apache.spark.sql.catalyst.expressions.{
  Alias,
  And,
  Attribute,
  DynamicPruningSubquery,
  EqualTo,
  Expression,
  InSubquery,
  IsNotNull,
  ListQuery,
  Literal,
  PredicateHelper,
  SubqueryExpression
}
import org.apache.spark.sql.catalyst.planning.ExtractEquiJoinKeys
import org.apache.spark.sql.catalyst.plans.{Inner, JoinType, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, Join, Limit, LogicalPlan, Project, WriteDelta}
import org.apache.spark.sql.catalyst.rules.Rule

import lamina.table.options.CoreOptions
import lamina.table.scan.KeySet

/** A MERGE into a primary-key table reads, of the target, only what the source's keys can match; so
 *  does a DELETE or UPDATE whose condition is `key IN (SELECT ...)`.
 *
 *  Spark plans such a MERGE as a join of the whole target with the source. For each column of the
 *  target's key or partition that the ON condition equates with an expression of the source, this rule
 *  gives the target's read the source's distinct values there as a dynamic filter (Spark's dynamic
 *  pruning subquery, planned by Spark: the values are computed before the target's scan plans and
 *  handed to it as `column IN (values)`). The scan ([[lamina.spark.read.LaminaScan]]) then skips
 *  partitions, buckets and files that hold none of the values and hands on only rows that hold one,
 *  so that the join and its shuffle see the change rather than the table; for a single integral key
 *  the merge of the sorted runs itself takes only those keys' records ([[lamina.mergetree.LongKeys]]).
 *
 *  The values computed are bounded: at most `merge.key-filter.max-keys` + 1 distinct values reach the
 *  driver, and a scan handed more than `merge.key-filter.max-keys` ignores them (reads everything).
 *  Applied when:
 *  - the target's rows without a match are not needed: the join keeps a target row only when it
 *    matches (no `WHEN NOT MATCHED BY SOURCE` clause);
 *  - Spark's statistics do not show the source with more rows than `merge.key-filter.max-keys` (an
 *    unknown size does not count as more);
 *  - the column's type compares exactly ([[KeySet.supports]]).
 *  EXPLAIN shows the filter as the target scan's `RuntimeFilters`. */
final class MergeKeyFilter extends Rule[LogicalPlan] with PredicateHelper {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case w: WriteDelta if !hasKeyFilter(w.query) =>
      primaryKeyTable(w.originalTable).fold[LogicalPlan](w) { target =>
        w.withNewChildren(Seq(w.query.transformUp {
          case j: Join => filtered(j, target)
          case f: Filter => filteredBySubquery(f, target)
        }))
      }
  }

  private def hasKeyFilter(plan: LogicalPlan): Boolean =
    plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[DynamicPruningSubquery])))

  private def primaryKeyTable(relation: Any): Option[LaminaTable] = relation match {
    case p: LogicalPlan => V2Relations.tableOf(p).collect { case t: LaminaTable if t.table.isPrimaryKeyTable => t }
    case _ => None
  }

  /** Whether `r` is the operation's read of `target`: Spark's `RowLevelOperationTable` (not public to
   *  connectors) wraps the very table instance the statement names. */
  private def readsTarget(r: LogicalPlan, target: LaminaTable): Boolean = V2Relations.tableOf(r).exists {
    case p: Product if p.getClass.getSimpleName == "RowLevelOperationTable" && p.productArity == 2 =>
      p.productElement(0).asInstanceOf[AnyRef] eq target
    case _ => false
  }

  private def filtered(j: Join, target: LaminaTable): Join = j.condition match {
    case None => j
    case Some(condition) =>
      val conjuncts = splitConjunctivePredicates(condition)
      val (leftKeys, rightKeys) = j match {
        case ExtractEquiJoinKeys(_, l, r, _, _, _, _, _) => (l, r)
        case _ => (Nil, Nil)
      }
      val left = pruned(j.left, j.right, target, conjuncts, Set(Inner, RightOuter, LeftSemi), j.joinType, rightKeys)
      val right =
        if (left ne j.left) j.right
        else pruned(j.right, j.left, target, conjuncts, Set(Inner, LeftOuter), j.joinType, leftKeys)
      if ((left eq j.left) && (right eq j.right)) j else j.copy(left = left, right = right)
  }

  /** `side` with the key filters the join's equalities give it from `other` (whose join keys, in the
   *  join's order, are `otherKeys`), or `side` itself. */
  private def pruned(side: LogicalPlan, other: LogicalPlan, target: LaminaTable, conjuncts: Seq[Expression],
      prunable: Set[JoinType], joinType: JoinType, otherKeys: Seq[Expression]): LogicalPlan = {
    if (!prunable.contains(joinType)) return side
    val relation = side.collectFirst { case r if readsTarget(r, target) => r }
    relation.fold(side) { r =>
      val pairs = conjuncts.flatMap {
        case EqualTo(a: Attribute, b) => Seq((a, b))
        case EqualTo(b, a: Attribute) => Seq((a, b))
        case _ => Nil
      }.filter { case (a, b) =>
        filterable(a, r, target) && b.references.nonEmpty && b.references.subsetOf(other.outputSet) &&
        b.deterministic && !SubqueryExpression.hasSubquery(b)
      }.groupBy(_._1.exprId).values.map(_.head).toSeq
      withKeyFilters(side, r, target, other, pairs, otherKeys)
    }
  }

  /** `f` with key filters from the conjuncts of its condition that are uncorrelated `IN (SELECT ...)`
   *  on key or partition columns of the target's read right below it (through projections and
   *  filters only, which keep a row's key as it is), or `f` itself. */
  private def filteredBySubquery(f: Filter, target: LaminaTable): LogicalPlan = {
    def below(p: LogicalPlan): Option[LogicalPlan] = p match {
      case r if readsTarget(r, target) => Some(r)
      case Project(_, child) => below(child)
      case Filter(_, child) => below(child)
      case _ => None
    }
    below(f.child).fold[LogicalPlan](f) { r =>
      val subqueries = splitConjunctivePredicates(f.condition).collect {
        case InSubquery(values, q: ListQuery) if q.outerAttrs.isEmpty && q.plan.output.size == values.size =>
          (values.zip(q.plan.output).collect { case (a: Attribute, b) if filterable(a, r, target) => (a, b: Expression) }, q.plan)
      }
      subqueries.foldLeft(f: LogicalPlan) { case (plan, (pairs, source)) =>
        plan.withNewChildren(Seq(withKeyFilters(plan.children.head, r, target, source, pairs)))
      }
    }
  }

  /** Whether `a` is a key or partition column of `r`, the target's read, of a type a key set holds. */
  private def filterable(a: Attribute, r: LogicalPlan, target: LaminaTable): Boolean = {
    val schema = target.table.schema
    r.outputSet.contains(a) && (schema.trimmedPrimaryKeys ++ schema.partitionKeys).contains(a.name) &&
    KeySet.supports(a.dataType)
  }

  /** `side` with a filter right above `r` (the target's read) that each `(a, b)` of `pairs` gives: `a`
   *  must hold one of the distinct values of `b` over `source`; `side` itself when there is nothing to
   *  filter by or the source may have too many values.
   *
   *  A source Spark's statistics show small enough to broadcast, joined on `joinKeys` (its keys of the
   *  join, in the join's order; none for a subquery), gets Spark's own form of the filter: the values
   *  are read from the join's broadcast of the source, with no job of their own and the source computed
   *  once; should the join not broadcast it after all, there is no filter (the whole target is read).
   *  Any other source's distinct values are computed by a job of their own, bounded. */
  private def withKeyFilters(side: LogicalPlan, r: LogicalPlan, target: LaminaTable, source: LogicalPlan,
      pairs: Seq[(Attribute, Expression)], joinKeys: Seq[Expression] = Nil): LogicalPlan = {
    val table = target.table
    val maxKeys =
      CoreOptions.MergeKeyFilterMaxKeys.getOrDefault(table.options ++ OptionScopes.dynamic(table.name, Map.empty, "read"))
    def keyIndex(b: Expression) = joinKeys.indexWhere(_.semanticEquals(b))
    if (pairs.isEmpty || maxKeys <= 0 || estimatedRows(source).exists(_ > maxKeys)) side
    else if (pairs.forall(p => keyIndex(p._2) >= 0) && broadcastable(source)) {
      val filters = pairs.map { case (a, b) =>
        DynamicPruningSubquery(a, source, joinKeys, Seq(keyIndex(b)), onlyInBroadcast = true): Expression
      }
      side.transformUp { case rel if rel eq r => Filter(filters.reduce(And), rel) }
    } else {
      val filters = pairs.map { case (a, b) =>
        val key = Alias(b, "key")()
        // the distinct values but NULL (which matches nothing), one more than a scan accepts: more
        // than that never reach the driver
        val values = Limit(Literal(maxKeys + 1), Aggregate(Seq(b), Seq(key), Filter(IsNotNull(b), source)))
        DynamicPruningSubquery(a, values, Seq(key.toAttribute), Seq(0), onlyInBroadcast = false): Expression
      }
      side.transformUp { case rel if rel eq r => Filter(filters.reduce(And), rel) }
    }
  }

  /** Whether Spark's statistics show `source` small enough for a broadcast join (its leaves' sizes
   *  known). */
  private def broadcastable(source: LogicalPlan): Boolean =
    try {
      val threshold = source.conf.autoBroadcastJoinThreshold
      val unknown = BigInt(source.conf.defaultSizeInBytes)
      threshold > 0 && !source.collectLeaves().exists(_.stats.sizeInBytes >= unknown) &&
      source.stats.sizeInBytes <= threshold
    } catch { case _: Exception => false }

  /** Spark's estimate of the rows of `source`: its row count where known, else its size over the
   *  size of a row (a compressed file's size underestimates its rows); None when a leaf's size is
   *  unknown (Spark's estimates above it scale the placeholder size, not a known one). */
  private def estimatedRows(source: LogicalPlan): Option[BigInt] =
    try {
      val unknown = BigInt(source.conf.defaultSizeInBytes)
      if (source.collectLeaves().exists(_.stats.sizeInBytes >= unknown)) None
      else {
        val stats = source.stats
        stats.rowCount.orElse(Some(stats.sizeInBytes / math.max(1, source.output.map(_.dataType.defaultSize).sum + 8)))
      }
    } catch { case _: Exception => None }
}
