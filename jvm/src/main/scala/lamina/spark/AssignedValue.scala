package lamina.spark

import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, Expression}
import org.apache.spark.sql.catalyst.expressions.objects.AssertNotNull

/** The value a resolved DML assignment computes, seen through what Spark's analysis wrapped around
 *  the written expression: the alias that aligning the assignments gave it, and the NULL check added
 *  where a nullable value is assigned to a NOT NULL column (a primary-key column is NOT NULL, so
 *  `SET * ` from any nullable source column gives `id = AssertNotNull(s.id)`). */
object AssignedValue {

  /** The expression without aliases and NULL checks: what the assignment writes when it succeeds. */
  def bare(e: Expression): Expression = e match {
    case a: Alias => bare(a.child)
    case n: AssertNotNull => bare(n.child)
    case other => other
  }

  /** [[bare]], also without the casts type coercion added. */
  def uncast(e: Expression): Expression = bare(e) match {
    case c: Cast => uncast(c.child)
    case other => other
  }
}
