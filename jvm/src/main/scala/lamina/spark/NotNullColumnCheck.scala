package lamina.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.expressions.objects.AssertNotNull
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, V2WriteCommand}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.DataType

import lamina.errors.BadInputException

/** Replaces, in writes into Lamina tables, the null checks that Spark puts on NOT NULL columns
 *  (`AssertNotNull`, whose error speaks of `scala.Option`) by [[ColumnNotNull]], whose error names
 *  the table and the column, and says when the column is part of the primary key. An optimizer rule
 *  ([[LaminaSparkSessionExtensions]]), so that it sees the writes that row-level DML was rewritten
 *  into as well. */
final class NotNullColumnCheck extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case w: V2WriteCommand => DmlAnalysisCheck.laminaTableOf(w.table) match {
        case Some(t) =>
          val columns = t.table.schema.fieldNames.toSet
          val keys = t.table.schema.primaryKeys.toSet
          w.withNewQuery(w.query.transformAllExpressions {
            case AssertNotNull(child, Seq(column)) if columns.contains(column) =>
              ColumnNotNull(child, t.name(), column, keys.contains(column))
          })
        case None => w
      }
  }
}

/** `child`, or a [[BadInputException]] naming table and column when it is NULL. */
final case class ColumnNotNull(child: Expression, table: String, column: String, primaryKey: Boolean) extends UnaryExpression {

  override def dataType: DataType = child.dataType
  override def nullable: Boolean = false
  override def prettyName: String = "lamina_not_null"

  private def error(): BadInputException = new BadInputException(
    if (primaryKey) s"Column '$column' of table $table is part of the primary key and must not be NULL"
    else s"Column '$column' of table $table is NOT NULL and cannot take a NULL")

  override def eval(input: InternalRow): Any = {
    val v = child.eval(input)
    if (v == null) throw error()
    v
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val c = child.genCode(ctx)
    val self = ctx.addReferenceObj("notNullCheck", this)
    ev.copy(code = code"""
      ${c.code}
      if (${c.isNull}) {
        throw $self.nullError();
      }""", isNull = FalseLiteral, value = c.value)
  }

  /** For generated code. */
  def nullError(): BadInputException = error()

  override protected def withNewChildInternal(newChild: Expression): ColumnNotNull = copy(child = newChild)
}
