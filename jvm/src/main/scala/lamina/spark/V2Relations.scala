package lamina.spark

import org.apache.spark.sql.catalyst.analysis.{EliminateSubqueryAliases, NamedRelation}
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/** Spark's plan node of a V2 table, which the analysis and optimizer rules of the session extensions
 *  must match: Spark keeps it in an execution package and offers no public alternative, so this is the
 *  one file of those rules that names it. */
object V2Relations {

  /** The table of `plan` when it is a V2 relation itself. */
  def tableOf(plan: LogicalPlan): Option[Table] = plan match {
    case r: DataSourceV2Relation => Some(r.table)
    case _ => None
  }

  /** The Lamina table a plan node reads or writes (subquery aliases looked through). */
  def laminaTableOf(plan: LogicalPlan): Option[LaminaTable] =
    tableOf(EliminateSubqueryAliases(plan)).collect { case lt: LaminaTable => lt }

  /** The V2 relation `plan` is (subquery aliases looked through), as the relation a write names. */
  def relation(plan: LogicalPlan): NamedRelation = EliminateSubqueryAliases(plan) match {
    case r: DataSourceV2Relation => r
    case other => throw new IllegalArgumentException(s"not a V2 table relation: ${other.nodeName}")
  }

  /** The V2 relation `plan` is, with `table` in place of its table and `extra` columns after its own. */
  def withTable(plan: LogicalPlan, table: Table, extra: Seq[AttributeReference]): NamedRelation =
    EliminateSubqueryAliases(plan) match {
      case r: DataSourceV2Relation => r.copy(table = table, output = r.output ++ extra)
      case other => throw new IllegalArgumentException(s"not a V2 table relation: ${other.nodeName}")
    }
}
