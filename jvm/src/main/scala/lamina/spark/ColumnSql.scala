package lamina.spark

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, NonSQLExpression, SubqueryExpression, UserDefinedExpression}
import org.apache.spark.sql.catalyst.plans.logical.Project

import lamina.errors.BadInputException

/** A PySpark `Column` as the SQL text that DELETE, UPDATE and MERGE take, so that the Python table
 *  API builds one statement whether it is given text or Columns. The Column is resolved against the
 *  plan its statement reads (the table, under its alias, joined with a merge's source under its
 *  alias), and the resolved expression printed: column references come out qualified
 *  (`t`.`id`), literals as SQL literals, implicit casts explicit. */
object ColumnSql {

  /** `column` resolved against `plan` and printed as SQL; `argument` names it in errors. */
  def of(plan: DataFrame, column: Column, argument: String): String = {
    val resolved = plan.select(column).queryExecution.analyzed match {
      case Project(Seq(Alias(child, _)), _) => child
      case Project(Seq(single), _) => single
      case other => throw new BadInputException(s"$argument: the Column resolves to ${other.nodeName}, not one value")
    }
    unprintable(resolved).foreach { e =>
      throw new BadInputException(
        s"$argument: the Column uses ${e.prettyName} (${e.getClass.getSimpleName}), which has no SQL text to " +
          "give the statement; write it with built-in functions or as SQL text")
    }
    resolved.sql
  }

  /** The first part of `e` that SQL text cannot carry: user-defined functions, subqueries and the
   *  expressions Spark prints for display only. */
  private def unprintable(e: Expression): Option[Expression] = e.find {
    case _: UserDefinedExpression | _: NonSQLExpression | _: SubqueryExpression => true
    case _ => false
  }
}
