package lamina.spark

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, EqualNullSafe, EqualTo, Expression, ExtractValue, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{
  Assignment,
  DeleteAction,
  DeleteFromTable,
  LogicalPlan,
  MergeIntoTable,
  UpdateAction,
  UpdateTable
}
import org.apache.spark.sql.catalyst.rules.Rule

import lamina.errors.BadInputException
import lamina.mergetree.function.DmlOperation
import lamina.spark.AssignedValue.{bare, uncast}
import lamina.table.sink.PrimaryKeyWrites
import lamina.table.FileStoreTable

/** Refuses, during analysis, the DELETE, UPDATE and MERGE INTO statements on primary-key tables that
 *  the table cannot honour, with the reason (see [[lamina.mergetree.DmlRules]]). Without this rule a MERGE clause or
 *  an update of a primary-key column is only refused once its first row reaches a writer, and a
 *  DELETE when its write is planned.
 *
 *  Runs among the resolution rules (installed by [[LaminaSparkSessionExtensions]]), so it sees the
 *  statement with its assignments before Spark rewrites it into a row-level write. Decisions:
 *  - UPDATE: a primary-key or partition column may only be assigned itself; the engine is asked
 *    about the assigned columns; on partial-update an assignment of the NULL literal is refused.
 *  - DELETE: unless its condition reads only partition columns (a metadata delete, which every
 *    engine honours), the engine is asked.
 *  - MERGE INTO: an update clause may assign a key column only what the ON condition equates it
 *    with (`SET id = s.id` under `ON t.id = s.id` keeps the key); the engine is asked about update
 *    clauses and delete clauses as the writer would (every non-key column counted as assigned).
 *  The writers keep their own checks for what only rows show (a computed NULL, a changed key). */
final class DmlAnalysisCheck(session: SparkSession) extends Rule[LogicalPlan] with PredicateHelper {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan.foreach {
      case u: UpdateTable if u.resolved =>
        laminaTable(u.table).foreach(t => checkUpdate(t, u.assignments))
      case m: MergeIntoTable if m.resolved =>
        laminaTable(m.targetTable).foreach(t => checkMerge(t, m))
      case d: DeleteFromTable if d.resolved =>
        laminaTable(d.table).foreach(t => checkDelete(t, d.condition))
      case _ =>
    }
    plan
  }

  private def laminaTable(plan: LogicalPlan): Option[FileStoreTable] =
    DmlAnalysisCheck.laminaTableOf(plan).map(_.table).filter(_.isPrimaryKeyTable)

  private def refuse(why: Option[String]): Unit = why.foreach(w => throw new BadInputException(w))

  /** The column an assignment writes (the top-level column of a nested field). */
  private def column(a: Assignment): String = {
    def root(e: Expression): Expression = e match {
      case x: ExtractValue => root(x.children.head)
      case other => other
    }
    root(a.key) match {
      case attr: Attribute => attr.name
      case other => other.sql
    }
  }

  /** An assignment that writes a column's own value back (what Spark adds for unassigned columns). */
  private def keepsValue(a: Assignment): Boolean = (a.key, bare(a.value)) match {
    case (k: Attribute, v: Attribute) => k.exprId == v.exprId
    case _ => false
  }

  private def keyColumns(t: FileStoreTable): Seq[String] = t.schema.primaryKeys ++ t.schema.partitionKeys

  private def checkUpdate(t: FileStoreTable, assignments: Seq[Assignment]): Unit = {
    val changed = assignments.filterNot(keepsValue)
    val columns = changed.map(a => canonical(t, column(a))).distinct
    // a key column first, so that the refusal names it whatever the engine says about the rest
    columns.find(keyColumns(t).contains).foreach(c => refuse(PrimaryKeyWrites.dmlRefusal(t, DmlOperation.Update, Seq(c))))
    refuse(PrimaryKeyWrites.dmlRefusal(t, DmlOperation.Update, columns))
    refuseNullOnPartialUpdate(t, changed, "UPDATE")
  }

  /** A DELETE whose condition reads only partition columns may become a metadata delete (whole
   *  partitions dropped, no records written), which every engine honours: left to the write, which
   *  refuses it if it does come to writing records. */
  private def checkDelete(t: FileStoreTable, condition: Expression): Unit = {
    val partitions = t.schema.partitionKeys
    val wholePartitions = condition.references.forall(a => partitions.exists(_.equalsIgnoreCase(a.name)))
    if (!wholePartitions)
      refuse(PrimaryKeyWrites.dmlRefusal(t, DmlOperation.Delete))
  }

  private def checkMerge(t: FileStoreTable, m: MergeIntoTable): Unit = {
    val clauses = m.matchedActions ++ m.notMatchedBySourceActions
    val equated = splitConjunctivePredicates(m.mergeCondition).flatMap {
      case EqualTo(a, b) => Seq(a -> b, b -> a)
      case EqualNullSafe(a, b) => Seq(a -> b, b -> a)
      case _ => Nil
    }
    val nonKey = PrimaryKeyWrites.updatableColumns(t)
    clauses.foreach {
      case u: UpdateAction =>
        val changed = u.assignments.filterNot(keepsValue)
        changed.foreach { a =>
          val col = canonical(t, column(a))
          // the ON condition equates the key with the assigned value: the row keeps its key
          val keepsKey = m.notMatchedBySourceActions.forall(_ ne u) &&
            equated.exists { case (x, y) => uncast(x).semanticEquals(a.key) && uncast(y).semanticEquals(uncast(a.value)) }
          if (keyColumns(t).contains(col) && !keepsKey)
            refuse(PrimaryKeyWrites.dmlRefusal(t, DmlOperation.MergeUpdate, Seq(col)))
        }
        refuse(PrimaryKeyWrites.dmlRefusal(t, DmlOperation.MergeUpdate, nonKey))
        refuseNullOnPartialUpdate(t, changed, "MERGE INTO ... UPDATE")
      case _: DeleteAction =>
        refuse(PrimaryKeyWrites.dmlRefusal(t, DmlOperation.MergeDelete))
      case _ =>
    }
  }

  private def refuseNullOnPartialUpdate(t: FileStoreTable, changed: Seq[Assignment], what: String): Unit =
    if (PrimaryKeyWrites.isPartialUpdate(t))
      changed.find { a =>
        val v = bare(a.value); v.foldable && v.eval() == null
      }
        .foreach(a => throw PrimaryKeyWrites.nullOnPartialUpdate(t, what, column(a)))

  /** The table's spelling of a column name that Spark resolved case-insensitively. */
  private def canonical(t: FileStoreTable, name: String): String =
    t.schema.fieldNames.find(_.equalsIgnoreCase(name)).getOrElse(name)
}

object DmlAnalysisCheck {

  /** The Lamina table a plan node reads or writes (subquery aliases looked through), for the
   *  analysis and optimizer rules of the session extensions. */
  def laminaTableOf(plan: LogicalPlan): Option[LaminaTable] = V2Relations.laminaTableOf(plan)
}
