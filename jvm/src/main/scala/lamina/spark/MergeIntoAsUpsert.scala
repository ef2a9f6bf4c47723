package lamina.spark

import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, EqualNullSafe, EqualTo, Expression, NamedExpression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, Assignment, InsertAction, LogicalPlan, MergeIntoTable, Project, UpdateAction}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import lamina.mergetree.MergeTreeOptions

/** Plans a MERGE INTO that only upserts its source as a plain write of the source rows: on a
 *  deduplicate table, writing a row under its primary key replaces the table's row of that key, so
 *  the statement needs neither a scan of the table nor a join, and costs what its source costs
 *  instead of what the table holds.
 *
 *  The statement qualifies when ([[UpsertShape.of]]): the target is a primary-key table with merge
 *  engine `deduplicate` and no `rowkind.field` (whose plain writes take their kind from a column), read
 *  at its latest snapshot; the ON condition is a conjunction of equalities
 *  `t.k = e` covering every primary-key column and nothing else; the only clauses are one unconditional
 *  `WHEN MATCHED THEN UPDATE` and one unconditional `WHEN NOT MATCHED THEN INSERT` that give every
 *  column the same deterministic value computed from the source alone, each key column the very
 *  expression the ON condition equates it with (`UPDATE SET * ... INSERT *` is the common form). Any
 *  other MERGE keeps Spark's row-level plan.
 *
 *  Two differences, both documented for users: MERGE's rule that a target row is matched by at most
 *  one source row becomes "the source holds each key at most once" (the writers refuse a repeated key,
 *  see [[UpsertShape.UniqueKeysOption]], and nothing is committed); and the written records are inserts
 *  (+I in `$audit_log`), as an INSERT INTO of the same rows writes. */
final class MergeIntoAsUpsert extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case m: MergeIntoTable if m.resolved && m.aligned && !m.withSchemaEvolution =>
      UpsertShape.of(m) match {
        case Some(columns) =>
          AppendData.byName(EliminateSubqueryAliases(m.targetTable).asInstanceOf[DataSourceV2Relation],
            Project(columns, m.sourceTable), Map(UpsertShape.UniqueKeysOption -> "true"))
        case None => m
      }
  }
}

object UpsertShape extends PredicateHelper {
  /** Write option that makes a primary-key table's writers refuse two records of one key in one
   *  write (what MERGE's cardinality rule becomes once it is planned as an upsert). */
  val UniqueKeysOption = "lamina.write.unique-keys"

  /** The source projection that upserts what `m` writes (one named value per target column, in the
   *  table's order), or None when `m` is not an upsert of its source (see [[MergeIntoAsUpsert]]). */
  def of(m: MergeIntoTable): Option[Seq[NamedExpression]] = {
    val relation = EliminateSubqueryAliases(m.targetTable) match {
      case r: DataSourceV2Relation => r
      case _ => return None
    }
    val table = relation.table match {
      case lt: LaminaTable if lt.pinnedSnapshot.isEmpty && lt.table.isPrimaryKeyTable => lt.table
      case _ => return None
    }
    if (!MergeTreeOptions.MergeEngine.getOrDefault(table.options).equalsIgnoreCase("deduplicate") ||
        table.options.contains(MergeTreeOptions.RowKindField.key)) return None
    val (updates, inserts) = (m.matchedActions, m.notMatchedActions, m.notMatchedBySourceActions) match {
      case (Seq(UpdateAction(None, u)), Seq(InsertAction(None, i)), Seq()) => (u, i)
      case _ => return None
    }
    val target = relation.output
    if (updates.size != target.size || inserts.size != target.size) return None
    val source = m.sourceTable.outputSet
    val values = target.indices.map { i =>
      val (u, ins) = (updates(i), inserts(i))
      val v = unalias(u.value)
      val sameColumn = assigns(u, target(i)) && assigns(ins, target(i))
      if (!sameColumn || !AssignedValue.bare(v).semanticEquals(AssignedValue.bare(ins.value)) || !v.deterministic ||
          !v.references.subsetOf(source))
        return None
      v
    }
    // each key column equated with exactly the value written to it, and nothing else in the condition
    val keys = table.schema.primaryKeys.map(k => target.indexWhere(_.name.equalsIgnoreCase(k)))
    def column(e: Expression): Int = e match {
      case a: Attribute => target.indexWhere(_.exprId == a.exprId)
      case _ => -1
    }
    val equated = splitConjunctivePredicates(m.mergeCondition).map {
      case EqualTo(a, b) if column(a) >= 0 => (column(a), b)
      case EqualTo(b, a) if column(a) >= 0 => (column(a), b)
      case EqualNullSafe(a, b) if column(a) >= 0 => (column(a), b)
      case EqualNullSafe(b, a) if column(a) >= 0 => (column(a), b)
      case _ => return None
    }
    // (a NOT NULL key column is assigned its source value under a NULL check: the check stays written)
    val covers = equated.forall { case (i, b) => keys.contains(i) && AssignedValue.bare(values(i)).semanticEquals(b) }
    if (!covers || equated.map(_._1).toSet != keys.toSet) return None
    Some(target.indices.map(i => Alias(values(i), target(i).name)()))
  }

  private def assigns(a: Assignment, column: Attribute): Boolean = a.key match {
    case k: Attribute => k.exprId == column.exprId
    case _ => false
  }

  private def unalias(e: Expression): Expression = e match {
    case a: Alias => unalias(a.child)
    case other => other
  }
}
