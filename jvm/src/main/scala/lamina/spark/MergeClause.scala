package lamina.spark

import lamina.errors.BadInputException

/** One WHEN clause of a merge that the Python table API builds, as MERGE INTO's SQL. Conditions and
 *  values are SQL expressions; columns are quoted. */
sealed trait MergeClause {
  def condition: Option[String]
  def when: String
  protected def action: String
  def sql: String = s"WHEN $when${condition.map(c => s" AND ($c)").getOrElse("")} THEN $action"
}

object MergeClause {
  private def quote(column: String): String = "`" + column.replace("`", "``") + "`"
  private def setList(set: Map[String, String]): String =
    set.toSeq.sortBy(_._1).map { case (c, v) => s"${quote(c)} = ($v)" }.mkString(", ")

  /** UPDATE SET of the rows `when` names (MATCHED or NOT MATCHED BY SOURCE). */
  final case class Update(when: String, condition: Option[String], set: Map[String, String]) extends MergeClause {
    protected def action = s"UPDATE SET ${setList(set)}"
  }
  final case class MatchedUpdateAll(condition: Option[String]) extends MergeClause {
    def when = "MATCHED"
    protected def action = "UPDATE SET *"
  }
  final case class MatchedDelete(condition: Option[String]) extends MergeClause {
    def when = "MATCHED"
    protected def action = "DELETE"
  }
  final case class NotMatchedInsert(condition: Option[String], values: Map[String, String]) extends MergeClause {
    def when = "NOT MATCHED"
    protected def action: String = {
      val cols = values.toSeq.sortBy(_._1)
      s"INSERT (${cols.map(c => quote(c._1)).mkString(", ")}) VALUES (${cols.map(c => s"(${c._2})").mkString(", ")})"
    }
  }
  final case class NotMatchedInsertAll(condition: Option[String]) extends MergeClause {
    def when = "NOT MATCHED"
    protected def action = "INSERT *"
  }
  final case class NotMatchedBySourceDelete(condition: Option[String]) extends MergeClause {
    def when = "NOT MATCHED BY SOURCE"
    protected def action = "DELETE"
  }

  /** The names the Python builder gives its clauses. */
  val Kinds: Seq[String] = Seq("matched_update", "matched_update_all", "matched_delete", "not_matched_insert",
    "not_matched_insert_all", "not_matched_by_source_update", "not_matched_by_source_delete")

  def apply(kind: String, condition: Option[String], assignments: Map[String, String]): MergeClause = {
    def needs(what: String): Map[String, String] =
      if (assignments.isEmpty) throw new BadInputException(s"A merge clause '$kind' needs at least one $what")
      else assignments
    kind match {
      case "matched_update" => Update("MATCHED", condition, needs("column to set"))
      case "matched_update_all" => MatchedUpdateAll(condition)
      case "matched_delete" => MatchedDelete(condition)
      case "not_matched_insert" => NotMatchedInsert(condition, needs("column value"))
      case "not_matched_insert_all" => NotMatchedInsertAll(condition)
      case "not_matched_by_source_update" => Update("NOT MATCHED BY SOURCE", condition, needs("column to set"))
      case "not_matched_by_source_delete" => NotMatchedBySourceDelete(condition)
      case other => throw new BadInputException(s"Unknown merge clause '$other': one of ${Kinds.mkString(", ")}")
    }
  }
}
